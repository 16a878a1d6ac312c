import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { int, scalar } from '../store/rows.ts';
import { createTestServer } from '../testing.ts';
import type { Any } from './testkit.ts';

/** Waits (bounded) until `ok()` holds, letting real I/O happen between fake-clock steps. */
async function until(ok: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(ok(), what);
}

test('an http check against a real server goes up, then down after two failed runs', async (t) => {
  let healthy = true;
  const target = createServer((_req, res) => {
    res.statusCode = healthy ? 200 : 500;
    res.end(healthy ? 'ok' : 'broken');
  });
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  t.after(() => target.close());
  const port = (target.address() as AddressInfo).port;

  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const admin: Principal = { kind: 'token', tokenId: 't', scope: 'write', label: 'e2e' };
  const server = await createTestServer({ clock, authenticate: async () => admin });
  t.after(() => server.dispose());
  const engine = server.checks.engine;
  const runs = () => scalar(server.deps.store.read, 'SELECT count(*) AS n FROM check_runs', int);

  const res = await server.app.inject({
    method: 'POST',
    url: '/api/v1/checks',
    payload: {
      name: 'site',
      service: 'web',
      kind: 'http',
      target: `http://127.0.0.1:${port}/`,
      everyMs: 10_000,
    },
  });
  assert.equal(res.statusCode, 201);
  const { id } = res.json() as Any;
  const status = () => engine.get(id)!.rec.state.status;
  await until(() => status() === 'up', 'up after the first run');

  healthy = false;
  await clock.advance(10_000);
  await until(
    () => engine.get(id)!.rec.lastDetail !== '200 OK' && engine.get(id)!.rec.lastRunAt! >= clock.now(),
    'second run done',
  );
  assert.equal(status(), 'up', 'one failure is not enough');
  await clock.advance(10_000);
  await until(() => status() === 'down', 'down after the second failure');
  await engine.flush();
  assert.equal(runs(), 3);

  const detail = (
    await server.app.inject({ method: 'GET', url: `/api/v1/checks/${id}/detail` })
  ).json() as Any;
  assert.deepEqual(
    detail.beats.map((b: Any) => b.status),
    ['up', 'down', 'down'],
  );
  const metrics = await server.deps.metrics.registry.getSingleMetricAsString('mon_check_runs_total');
  assert.match(metrics, /kind="http",status="down"} 2/);
});
