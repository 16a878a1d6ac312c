import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AGENT_SILENT_AFTER_MS } from '../../protocol/agent.ts';
import { hostServer, T0 } from './testkit.ts';

const http = (name: string, from: string | null) => ({
  name,
  service: 'shop',
  kind: 'http',
  target: `https://${name}.example.com/`,
  ...(from !== null && { from }),
});
const run = (id: string, ts: number, status = 'up', more: Record<string, unknown> = {}) => ({
  kind: 'run',
  ts,
  id,
  status,
  latencyMs: 12,
  detail: status === 'up' ? '200 OK' : '503 Service Unavailable',
  ...more,
});

test("an agent's runs of its checks are recorded; runs of another host's checks or the server's are skipped", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const one = await kit.addHost('web-1');
  await kit.addHost('web-2');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  const theirs = (await kit.inject('POST', '/api/v1/checks', http('theirs', 'web-2'))).body.id as string;
  const central = (await kit.inject('POST', '/api/v1/checks', http('central', null))).body.id as string;
  const runs = (id: string) => kit.count('SELECT count(*) AS n FROM check_runs WHERE check_id = ?', id);

  const res = await kit.send(one, [
    run(home, T0 + 1000, 'down'),
    run(theirs, T0 + 1000, 'down'),
    run(central, T0 + 1000, 'down'),
    run('0000000000000000', T0 + 1000, 'down'),
    run(home, T0 + 2000, 'down', { expiry: { kind: 'certificate', expires: T0 + 90 * 86_400_000 } }),
  ]);
  assert.equal(res.status, 200);
  assert.deepEqual(res.body, { stored: 2, skipped: 3 });
  assert.equal(runs(home), 2);
  assert.equal(kit.engine.get(home)!.rec.state.status, 'down', 'two failed runs in a row');
  assert.equal(kit.engine.get(home)!.rec.expiry?.expires, T0 + 90 * 86_400_000);
  assert.equal(runs(theirs), 0, 'a host cannot report runs of another host’s check');
  assert.equal(runs(central), 0);
  assert.equal(kit.engine.get(theirs)!.rec.state.status, 'unknown');

  // The same batch again (its answer was lost): nothing is recorded twice.
  const again = await kit.send(one, [run(home, T0 + 1000, 'down'), run(home, T0 + 2000, 'down')]);
  assert.deepEqual(again.body, { stored: 0, skipped: 2 });
  assert.equal(runs(home), 2);
  const latest = kit.db
    .prepare('SELECT ts, status, detail FROM check_runs WHERE check_id = ? ORDER BY ts')
    .all(home);
  assert.deepEqual(
    latest.map((r) => r.ts),
    [T0 + 1000, T0 + 2000],
  );
});

test('one failed run sent twice at once is recorded once: the writer job judges each run', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  await kit.send(token, [run(home, T0 + 1000, 'up')]);
  const answers = await Promise.all([
    kit.send(token, [run(home, T0 + 2000, 'down')]),
    kit.send(token, [run(home, T0 + 2000, 'down')]),
  ]);
  assert.deepEqual(
    answers.map((a) => a.body).sort((a, b) => b.stored - a.stored),
    [
      { stored: 1, skipped: 0 },
      { stored: 0, skipped: 1 },
    ],
  );
  assert.equal(kit.count('SELECT count(*) AS n FROM check_runs WHERE check_id = ?', home), 2);
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up', 'one failure is not down');
});

test('runs kept from before a silence cannot take the check back in time; later ones count', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  await kit.send(token, [run(home, T0, 'up')]);
  await kit.clock.advance(AGENT_SILENT_AFTER_MS);
  await kit.engine.flush();
  const silentAt = T0 + AGENT_SILENT_AFTER_MS;
  assert.equal(kit.engine.get(home)!.rec.state.status, 'unknown');

  // The network, not the agent, was down: it kept runs from before and during the silence.
  await kit.clock.advance(30_000);
  const res = await kit.send(token, [
    run(home, silentAt - 20_000, 'down'),
    run(home, silentAt - 10_000, 'down'),
    run(home, silentAt + 10_000, 'up'),
  ]);
  assert.deepEqual(res.body, { stored: 1, skipped: 2 });
  const rows = kit.db.prepare('SELECT ts FROM check_runs WHERE check_id = ? ORDER BY ts').all(home);
  assert.deepEqual(
    rows.map((r) => r.ts),
    [T0, silentAt + 10_000],
  );
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up');
});

test("runs dated before a check's definition changed are of the old one and are left out", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  await kit.send(token, [run(home, T0, 'up')]);
  await kit.clock.advance(60_000);
  const changedAt = kit.clock.now();
  const moved = await kit.inject('PUT', `/api/v1/checks/${home}`, {
    ...http('home', 'web-1'),
    target: 'https://new.example.com/',
  });
  assert.equal(moved.status, 200);
  await kit.clock.advance(30_000);
  const res = await kit.send(token, [
    run(home, changedAt - 30_000, 'down'),
    run(home, changedAt - 15_000, 'down'),
    run(home, changedAt + 15_000, 'up'),
  ]);
  assert.deepEqual(res.body, { stored: 1, skipped: 2 });
  assert.equal(kit.engine.get(home)!.rec.state.status, 'up', 'the old target’s failures do not count');
  assert.equal(kit.engine.get(home)!.rec.lastRunAt, changedAt + 15_000);
});

test("a host's runs are stored in its batch's writer job, not queued one by one in front of heartbeat pings", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', 'web-1'))).body.id as string;
  let queued = 0;
  const recordRun = kit.engine.recordRun.bind(kit.engine);
  kit.engine.recordRun = (...args) => {
    queued++;
    return recordRun(...args);
  };
  const frames = Array.from({ length: 500 }, (_, i) => run(home, T0 + i * 1000, 'up'));
  await kit.clock.advance(500_000);
  assert.deepEqual((await kit.send(token, frames)).body, { stored: 500, skipped: 0 });
  assert.equal(queued, 0, "nothing went through the engine's queue");
  assert.equal(kit.count('SELECT count(*) AS n FROM check_runs WHERE check_id = ?', home), 500);
});
