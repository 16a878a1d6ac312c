import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Runner } from '../../runners/run.ts';
import type { Principal } from '../auth/access.ts';
import { FakeClock } from '../clock.ts';
import { silentLog } from '../log.ts';
import { createServer, type Server } from '../start.ts';
import { all, int, mapper, text } from '../store/rows.ts';
import { createTestServer, tempDir } from '../testing.ts';
import type { Any } from './testkit.ts';

const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);
const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

async function call(server: Server, method: 'GET' | 'POST', url: string, payload?: object): Promise<Any> {
  const res = await server.app.inject({ method, url, ...(payload ? { payload } : {}) });
  assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`);
  return res.body.startsWith('{') ? (res.json() as Any) : {};
}

function downRuns(server: Server, id: string): { ts: number; detail: string }[] {
  return all(
    server.deps.store.read,
    "SELECT ts, detail FROM check_runs WHERE check_id = ? AND status = 'down' ORDER BY ts",
    mapper({ ts: int, detail: text }),
    id,
  );
}

test('a restart neither records a missed heartbeat again nor moves its schedule, and still catches a miss while down', async (t) => {
  const data = tempDir();
  t.after(() => data.remove());
  const start = async (clock: FakeClock) => {
    const server = await createServer({
      dataDir: data.dir,
      configPath: join(data.dir, 'mon.toml'),
      env: {},
      log: silentLog,
      clock,
      authenticate: async () => admin,
      // No group-commit window: the fake clock's advance sees each write committed.
      store: { windowMs: 0 },
    });
    return server;
  };
  let clock = new FakeClock(T0);
  let server = await start(clock);
  const hourly = { name: 'backup', service: 'ops', kind: 'heartbeat', everyMs: 60 * MIN, graceMs: 5 * MIN };
  const quarter = { name: 'sync', service: 'ops', kind: 'heartbeat', everyMs: 15 * MIN, graceMs: 5 * MIN };
  const a = (await call(server, 'POST', '/api/v1/checks', hourly)).id as string;
  const pathOf = async (id: string) =>
    new URL((await call(server, 'POST', `/api/v1/checks/${id}/ping-url`)).url).pathname;
  const pathA = await pathOf(a);
  await call(server, 'GET', pathA);
  await clock.advance(65 * MIN);
  assert.equal(server.checks.engine.get(a)!.rec.state.status, 'down');
  await clock.advance(10 * MIN); // 75 min: b made and pinged, expected at 90, late at 95
  const b = (await call(server, 'POST', '/api/v1/checks', quarter)).id as string;
  await call(server, 'GET', await pathOf(b));
  await clock.advance(15 * MIN);
  await server.checks.engine.flush();
  const missed = downRuns(server, a);
  await server.close();
  assert.deepEqual(missed, [
    { ts: T0 + 65 * MIN, detail: `no ping since ${iso(0)}; expected by ${iso(60)}` },
  ]);

  // Down from 90 to 100 min: b's deadline (95) passed meanwhile; a's miss at 65 is already recorded.
  clock = new FakeClock(T0 + 100 * MIN);
  server = await start(clock);
  t.after(() => server.close());
  const engine = server.checks.engine;
  await clock.advance(0);
  await engine.flush();
  assert.deepEqual(downRuns(server, a), missed, 'no second failure for the recorded miss');
  assert.equal(engine.get(a)!.hb!.expectedAt, T0 + 120 * MIN, 'still expected at 02:00');
  assert.deepEqual(downRuns(server, b), [
    { ts: T0 + 100 * MIN, detail: `no ping since ${iso(75)}; expected by ${iso(90)}` },
  ]);
  const row = (await call(server, 'GET', '/api/v1/services/ops')).checks.find((c: Any) => c.id === a);
  assert.equal(row.heartbeat.dueAt, T0 + 125 * MIN);

  await clock.advance(25 * MIN - 1);
  await engine.flush();
  assert.equal(downRuns(server, a).length, 1);
  await clock.advance(1);
  await engine.flush();
  assert.deepEqual(downRuns(server, a).at(-1), {
    ts: T0 + 125 * MIN,
    detail: `no ping since ${iso(0)}; expected by ${iso(120)}`,
  });
});

test('a heartbeat deadline is handled on time while every run slot waits on hanging checks', async (t) => {
  const clock = new FakeClock(T0);
  let inFlight = 0;
  let most = 0;
  let started = 0;
  // Answers nothing: each run holds its slot until the check's timeout aborts it.
  const hang: Runner = (_def, ctx) =>
    new Promise((resolve) => {
      started++;
      most = Math.max(most, ++inFlight);
      ctx.signal.addEventListener('abort', () => {
        inFlight--;
        resolve({ status: 'down', latencyMs: null, detail: 'timeout' });
      });
    });
  const server = await createTestServer({
    clock,
    checks: { runners: { http: hang }, concurrency: 2 },
    authenticate: async () => admin,
  });
  t.after(() => server.dispose());
  const engine = server.checks.engine;
  const beat = { name: 'job', service: 'ops', kind: 'heartbeat', everyMs: 10 * MIN, graceMs: MIN };
  const id = (await call(server, 'POST', '/api/v1/checks', beat)).id as string;
  for (let i = 0; i < 6; i++) {
    const body = { name: `web ${i}`, service: 'web', kind: 'http', target: 'http://127.0.0.1:9/' };
    await call(server, 'POST', '/api/v1/checks', { ...body, everyMs: 2 * MIN, timeoutMs: 2 * MIN });
  }
  await clock.advance(11 * MIN - 1);
  assert.equal(engine.get(id)!.rec.state.status, 'unknown');
  await clock.advance(1);
  assert.equal(engine.get(id)!.rec.state.status, 'down', 'down at its deadline, not behind the runs');
  assert.equal(engine.get(id)!.rec.lastRunAt, T0 + 11 * MIN);
  await engine.flush();
  assert.deepEqual(
    downRuns(server, id).map((r) => r.ts),
    [T0 + 11 * MIN],
  );
  // The cap still holds for real runs.
  assert.equal(most, 2);
  assert.ok(started >= 10, `runs kept going (${started})`);
});

/** The ISO time `min` minutes after T0. */
function iso(min: number): string {
  return new Date(T0 + min * MIN).toISOString();
}
