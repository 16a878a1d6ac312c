import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ConfigExport } from '../../protocol/config.ts';
import type { Principal } from '../auth/access.ts';
import type { Any } from '../checks/testkit.ts';
import { silentLog } from '../log.ts';
import { createServer, type Server } from '../start.ts';
import { int, scalar } from '../store/rows.ts';
import { tempDir, within } from '../testing.ts';

/** mon.toml and its checks in a whole server: the real watcher, real file writes, the real store. */

const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

async function serverOn(dataDir: string, configPath: string): Promise<Server> {
  return createServer({
    dataDir,
    configPath,
    env: {},
    log: silentLog,
    authenticate: async () => admin,
    checks: { runners: {} },
    store: { windowMs: 0 },
  });
}

async function call(server: Server, method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) {
  const res = await server.app.inject({ method, url, ...(payload ? { payload } : {}) });
  return { status: res.statusCode, body: (res.body.startsWith('{') ? res.json() : {}) as Any };
}

const idOf = (server: Server, name: string) =>
  server.checks.engine.all().find((e) => e.rec.name === name)?.rec.id;

test('a mon.toml emptied for a moment while it is saved costs no check its id or history', async (t) => {
  const data = tempDir();
  t.after(() => data.remove());
  const configPath = join(data.dir, 'mon.toml');
  const text =
    '[[check]]\nname = "nightly"\nservice = "jobs"\nevery = "1d"\nping_token = "btp_abcdefghijklmnopqrstuvwxyz"\n';
  writeFileSync(configPath, text);
  const server = await serverOn(data.dir, configPath);
  t.after(() => server.close());
  const id = idOf(server, 'nightly');
  assert.ok(id);
  assert.equal((await call(server, 'GET', '/ping/btp_abcdefghijklmnopqrstuvwxyz')).status, 200);

  writeFileSync(configPath, '');
  await new Promise((resolve) => setTimeout(resolve, 300));
  writeFileSync(configPath, text);
  await new Promise((resolve) => setTimeout(resolve, 1200));
  await server.checks.engine.reconcile();
  assert.equal(idOf(server, 'nightly'), id);
  const db = server.deps.store.read;
  assert.equal(scalar(db, 'SELECT count(*) FROM check_runs WHERE check_id = ?', int, id), 1);
});

test('the export loaded as mon.toml keeps the ping URL of every heartbeat', async (t) => {
  const data = tempDir();
  const fresh = tempDir();
  t.after(() => {
    data.remove();
    fresh.remove();
  });
  const configPath = join(data.dir, 'mon.toml');
  writeFileSync(configPath, '[[check]]\nname = "sync"\nservice = "ops"\nevery = "1h"\n');
  let server = await serverOn(data.dir, configPath);
  t.after(() => server.close());

  // A panel heartbeat, and a file heartbeat whose URL was made in the panel.
  const made = await call(server, 'POST', '/api/v1/checks', {
    name: 'backup',
    service: 'ops',
    kind: 'heartbeat',
    everyMs: 3_600_000,
  });
  assert.equal(made.status, 201);
  const urls: string[] = [];
  for (const id of [made.body.id, idOf(server, 'sync')]) {
    const answer = await call(server, 'POST', `/api/v1/checks/${id}/ping-url`);
    urls.push(new URL(answer.body.url).pathname);
  }
  for (const url of urls) assert.equal((await call(server, 'GET', url)).status, 200);

  const exported = (await call(server, 'GET', '/api/v1/config/export')).body as ConfigExport;
  for (const url of urls) assert.ok(!exported.toml.includes(url.slice('/ping/'.length)), 'no usable token');
  assert.deepEqual(exported.secrets, []);

  // The documented move: delete the panel check, then use the export as mon.toml.
  assert.equal((await call(server, 'DELETE', `/api/v1/checks/${made.body.id}`)).status, 204);
  writeFileSync(configPath, exported.toml);
  await within(2000, 'backup loaded from the file', () =>
    server.checks.engine.all().some((e) => e.rec.name === 'backup' && e.rec.managed),
  );
  await server.checks.engine.reconcile();
  assert.equal(server.deps.config.error(), null);
  for (const url of urls) assert.equal((await call(server, 'GET', url)).status, 200, url);
  // The URL now comes from the file: the API does not replace it.
  assert.equal((await call(server, 'POST', `/api/v1/checks/${idOf(server, 'backup')}/ping-url`)).status, 409);
  await server.close();

  // A new server with only the exported file.
  const moved = join(fresh.dir, 'mon.toml');
  writeFileSync(moved, exported.toml);
  server = await serverOn(fresh.dir, moved);
  assert.deepEqual(
    server.checks.engine
      .all()
      .map((e) => e.rec.name)
      .sort(),
    ['backup', 'sync'],
  );
  for (const url of urls) assert.equal((await call(server, 'GET', url)).status, 200, url);
});

test('a [[service]] taken out of mon.toml goes with its sites unless the API holds it; its name is free', async (t) => {
  const data = tempDir();
  t.after(() => data.remove());
  const configPath = join(data.dir, 'mon.toml');
  const service = (name: string, site: string) => `[[service]]\nname = "${name}"\nsites = ["${site}"]\n`;
  writeFileSync(configPath, service('web2', 'other.test'));
  const server = await serverOn(data.dir, configPath);
  t.after(() => server.close());
  // "keep" holds a site added through the API, then the file declares it too.
  assert.equal(
    (await call(server, 'POST', '/api/v1/sites', { domain: 'api.test', service: 'keep' })).status,
    201,
  );
  const load = async (text: string) => {
    writeFileSync(configPath, text);
    server.deps.config.reload();
    await server.checks.engine.reconcile();
  };
  await load(service('web2', 'other.test') + service('keep', 'file.test'));
  const services = async () =>
    ((await call(server, 'GET', '/api/v1/services')).body.services as Any[]).map((s) => [
      s.name,
      s.managed,
      s.sites,
    ]);
  assert.deepEqual(await services(), [
    ['keep', true, ['api.test', 'file.test']],
    ['web2', true, ['other.test']],
  ]);

  await load('');
  assert.equal(server.deps.config.error(), null);
  assert.deepEqual(
    await services(),
    [['keep', false, ['api.test']]],
    'web2 and the file site go; keep stays',
  );

  await load('[[check]]\nname = "web2"\nservice = "edge"\nevery = "1h"\n');
  assert.equal(server.deps.config.error(), null);
  assert.ok(idOf(server, 'web2'));
  await load('[[check]]\nname = "keep"\nservice = "edge"\nevery = "1h"\n');
  assert.equal(
    server.deps.config.error(),
    'check[0].name: collides with the service "keep", which has sites added through the API; rename the check (the whole file is rejected until then)',
  );
});
