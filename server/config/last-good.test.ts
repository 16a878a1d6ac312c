import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ConfigExport, ConfigStatus } from '../../protocol/config.ts';
import type { HostRead } from '../../protocol/hosts.ts';
import { agents, BRITISH_ADDRESS, view } from '../analytics/testkit.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { int, scalar } from '../store/rows.ts';
import { createTestServer, memoryLog, tempDir } from '../testing.ts';

const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
const SECRET = '123456:literal-bot-token';
const good = `[[service]]
name = "shop"
sites = ["shop.example"]
hosts = ["web-1"]

[[host]]
name = "web-1"
cpu = 75
disk = 60

[[alert]]
name = "ops"
type = "telegram"
bot_token = "${SECRET}"
chat_id = 7
`;

/** A server on `dir` (its mon.toml there), restarted as a process would be: same data, same clock. */
async function serverOn(dir: string, clock: FakeClock) {
  const logged = memoryLog();
  const server = await createTestServer({
    dataDir: dir,
    clock,
    log: logged.log,
    authenticate: async (request) => (request.url.startsWith('/api/') ? admin : null),
  });
  const get = async <T>(url: string) => (await server.app.inject({ url })).json<T>();
  const send = async () =>
    (
      await server.app.inject({
        method: 'POST',
        url: '/e',
        remoteAddress: BRITISH_ADDRESS,
        headers: { 'content-type': 'text/plain;charset=UTF-8', 'user-agent': agents.chromeWindows },
        payload: JSON.stringify(view()),
      })
    ).statusCode;
  const views = () =>
    scalar(server.deps.store.read, "SELECT count(*) FROM analytics_views WHERE site = 'shop.example'", int);
  return { server, get, send, views, logged };
}

test('a bad mon.toml at start runs on the last good one: its sites take events, its hosts keep their thresholds', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const file = join(dir, 'mon.toml');
  writeFileSync(file, good);
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));

  const first = await serverOn(dir, clock);
  assert.equal(await first.send(), 204);
  assert.equal(first.views(), 1);
  const before = await first.get<HostRead>('/api/v1/hosts/web-1');
  assert.deepEqual([before.fromFile, before.alertsFrom, before.alerts.cpu], [true, 'file', 75]);
  await first.server.close();

  // A typo saved while mon was down.
  writeFileSync(file, good.replace('cpu = 75', 'cpu = 750'));
  await clock.advance(60_000);
  const second = await serverOn(dir, clock);
  t.after(() => second.server.close());
  assert.deepEqual(await second.get<ConfigStatus>('/api/v1/config/status'), {
    error: 'host[0].cpu: must be a number from 1 to 100, or false',
    inForce: 'lastGood',
  });
  assert.equal(await second.send(), 204, "the last good file's site still takes events");
  assert.equal(second.views(), 2, 'and stores them');
  const host = await second.get<HostRead>('/api/v1/hosts/web-1');
  assert.deepEqual(
    [host.fromFile, host.alertsFrom, host.alerts.cpu, host.alerts.disk, host.services],
    [true, 'file', 75, 60, ['shop']],
  );
  assert.ok(
    second.logged.text().includes('config file rejected at start; running with the last good configuration'),
  );

  // The stored text holds a literal secret: no read, export or log line shows it.
  const reads = await Promise.all(
    ['/api/v1/config/status', '/api/v1/config/export', '/api/v1/settings', '/api/v1/hosts/web-1'].map(
      async (url) => (await second.server.app.inject({ url })).body,
    ),
  );
  assert.match(reads[1]!, /MON_ALERT/);
  assert.match(reads[2]!, /"ops"/, "the file's channel is in force");
  for (const body of [...reads, first.logged.text(), second.logged.text()])
    assert.ok(!body.includes(SECRET), 'the secret leaked');
  const exported = await second.get<ConfigExport>('/api/v1/config/export');
  assert.match(exported.toml, /cpu = 75/, 'the export is the configuration in force');

  // Fixed: the file is in force again.
  writeFileSync(file, good.replace('cpu = 75', 'cpu = 80'));
  second.server.deps.config.reload();
  assert.deepEqual(await second.get<ConfigStatus>('/api/v1/config/status'), { error: null, inForce: 'file' });
  assert.equal((await second.get<HostRead>('/api/v1/hosts/web-1')).alerts.cpu, 80);
});

test('a missing mon.toml is an empty configuration, and so is a bad one at start when no earlier file loaded', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const file = join(dir, 'mon.toml');
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  writeFileSync(file, 'sites = [');
  const first = await serverOn(dir, clock);
  const status = await first.get<ConfigStatus>('/api/v1/config/status');
  assert.equal(status.inForce, 'empty');
  assert.match(status.error ?? '', /^line 1/);
  assert.equal(await first.send(), 404);
  await first.server.close();

  // A good file loads, then mon.toml is deleted: the empty configuration is the last good one.
  writeFileSync(file, good);
  const second = await serverOn(dir, clock);
  assert.equal(await second.send(), 204);
  await second.server.close();
  rmSync(file);
  const third = await serverOn(dir, clock);
  assert.equal(await third.send(), 404, 'deleting mon.toml removes its sites');
  await third.server.close();
  writeFileSync(file, 'sites = [');
  const fourth = await serverOn(dir, clock);
  t.after(() => fourth.server.close());
  assert.equal((await fourth.get<ConfigStatus>('/api/v1/config/status')).inForce, 'lastGood');
  assert.equal(await fourth.send(), 404, 'the last good configuration is the empty one');
});
