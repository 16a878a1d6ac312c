import assert from 'node:assert/strict';
import { test } from 'node:test';
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
