import assert from 'node:assert/strict';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { CheckTransition } from '../events.ts';
import { within } from '../testing.ts';
import { type Any, checkServer } from './testkit.ts';

/**
 * DESIGN rules 1 and 2 on the check path: a result, the domain events it causes and what subscribers
 * write commit together; a 2xx means stored; live updates go out only after the commit.
 */

const beat = { name: 'backup', service: 'ops', kind: 'heartbeat', everyMs: 3_600_000, graceMs: 300_000 };
const web = { name: 'home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/', everyMs: 10_000 };

async function heartbeatServer(options: Parameters<typeof checkServer>[0] = {}) {
  const kit = await checkServer(options);
  const { id } = (await kit.inject('POST', '/api/v1/checks', beat)).body as Any;
  const url = ((await kit.inject('POST', `/api/v1/checks/${id}/ping-url`)).body as Any).url as string;
  const db = kit.server.deps.store.read;
  const runs = () =>
    (
      db.prepare('SELECT status FROM check_runs WHERE check_id = ? ORDER BY ts, rowid').all(id) as {
        status: string;
      }[]
    ).map((r) => r.status);
  const stored = () =>
    (db.prepare('SELECT status FROM checks WHERE id = ?').get(id) as { status: string }).status;
  return { ...kit, id, path: new URL(url).pathname, runs, stored };
}

test("a subscriber's rows commit with the run that caused them, and roll back with it", async (t) => {
  const kit = await heartbeatServer();
  const { server, inject, engine, id, path, runs, stored } = kit;
  t.after(() => server.dispose());
  await server.deps.store.writer.run((db) => db.exec('CREATE TABLE seen (check_id TEXT, went TEXT)'));
  let refuse = false;
  const received: CheckTransition[] = [];
  server.deps.events.subscribe((db, events) => {
    for (const event of events) {
      if (event.type !== 'check.transition') continue;
      received.push(event);
      db.prepare('INSERT INTO seen VALUES (?, ?)').run(event.checkId, event.to);
      if (refuse) throw new Error('the incident could not be opened');
    }
  });
  const seen = () =>
    (server.deps.store.read.prepare('SELECT went FROM seen').all() as { went: string }[]).map((r) => r.went);

  assert.equal((await inject('GET', path)).status, 200);
  assert.deepEqual(runs(), ['up']);
  assert.deepEqual(seen(), ['up'], 'the subscriber row is there when the ping is answered');
  assert.equal(received[0]?.type, 'check.transition');
  assert.equal(received[0]?.from, 'unknown');

  refuse = true;
  const failed = await inject('GET', `${path}/fail`);
  assert.equal(failed.status, 500, 'a ping whose consequences could not be stored is not acknowledged');
  assert.deepEqual(runs(), ['up'], 'the run rolled back with its subscriber');
  assert.deepEqual(seen(), ['up']);
  assert.equal(stored(), 'up');
  assert.equal(engine.get(id)!.rec.state.status, 'up', 'memory rolled back too');
  const changes = server.deps.store.read
    .prepare('SELECT count(*) AS n FROM check_changes WHERE check_id = ?')
    .get(id) as {
    n: number;
  };

  refuse = false;
  assert.equal((await inject('GET', `${path}/fail`)).status, 200);
  assert.deepEqual(runs(), ['up', 'down']);
  assert.deepEqual(seen(), ['up', 'down']);
  const after = server.deps.store.read
    .prepare('SELECT count(*) AS n FROM check_changes WHERE check_id = ?')
    .get(id) as {
    n: number;
  };
  assert.equal(after.n, changes.n + 1, 'one change row, from the stored failure only');
});

test('a live update never arrives before the data it announces can be read', async (t) => {
  const { server, clock, script, engine, inject } = await checkServer();
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Any;
  const checked: { runs: number; lastRunAt: number | null; newest: number | null }[] = [];
  server.deps.bus.subscribe((keys) => {
    if (!keys.includes('service:shop')) return;
    const row = server.deps.store.read
      .prepare('SELECT count(*) AS n, max(ts) AS newest FROM check_runs WHERE check_id = ?')
      .get(id) as { n: number; newest: number | null };
    checked.push({ runs: row.n, lastRunAt: engine.get(id)?.rec.lastRunAt ?? null, newest: row.newest });
  });
  await clock.advance(0);
  script.outcome = { status: 'down', latencyMs: null, detail: 'connection refused' };
  for (let i = 0; i < 3; i++) await clock.advance(10_000);
  await engine.flush();
  const runsAtAnnouncements = checked.map((c) => c.runs).filter((n) => n > 0);
  assert.ok(runsAtAnnouncements.length >= 4, 'each run was announced');
  for (const c of checked.slice(1)) {
    assert.equal(c.newest, c.lastRunAt, 'what memory says is already stored when announced');
  }
});

test('pings while another process holds the database lock: 503 with Retry-After, every 200 stored, the process keeps answering', async (t) => {
  const { server, inject, path, runs } = await heartbeatServer({ store: { maxWaitMs: 300 } });
  t.after(() => server.dispose());
  const other = new DatabaseSync(join(server.dataDir, 'mon.db'));
  t.after(() => other.close());
  let ok = 0;
  let refused = 0;
  const ping = async () => {
    const res = await server.app.inject({ method: 'GET', url: path });
    if (res.statusCode === 200) ok++;
    else {
      assert.equal(res.statusCode, 503);
      assert.ok(Number(res.headers['retry-after']) >= 1);
      assert.match(String(res.headers['content-type']), /problem\+json/);
      refused++;
    }
  };
  // Pings keep coming before, during and after a lock of 1.2 s.
  let stop = false;
  const load = (async () => {
    while (!stop) {
      await Promise.all([ping(), ping(), ping()]);
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  await new Promise((r) => setTimeout(r, 100));
  other.exec('BEGIN IMMEDIATE');
  await new Promise((r) => setTimeout(r, 1100));
  const started = Date.now();
  const read = await inject('GET', '/api/v1/services');
  assert.equal(read.status, 200);
  // A read held by the lock would wait for the read connection's 5 s busy timeout.
  assert.ok(Date.now() - started < 1000, 'reads answer while the lock is held');
  const health = await server.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(health.statusCode, 503);
  assert.equal(health.body, 'database not writable');
  await new Promise((r) => setTimeout(r, 100));
  other.exec('ROLLBACK');
  await new Promise((r) => setTimeout(r, 200));
  stop = true;
  await load;
  assert.ok(refused > 0, 'some pings came while the lock was held');
  assert.ok(ok > 0);
  assert.equal(runs().length, ok, 'every acknowledged ping is stored, and nothing else');
  assert.equal((await server.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
});

test('an API write that storage cannot take (disk full) answers 503, not 500, and changes nothing', async (t) => {
  const { server, inject } = await checkServer();
  t.after(() => server.dispose());
  const big = {
    ...web,
    name: 'big',
    expect: Array.from({ length: 20 }, (_, i) => ({ bodyContains: `${i}`.padEnd(10_000, 'x') })),
  };
  await server.deps.store.writer.run((db) => {
    const { page_count } = db.prepare('PRAGMA page_count').get() as { page_count: number };
    db.exec(`PRAGMA max_page_count = ${page_count}`);
  });
  const res = await inject('POST', '/api/v1/checks', big);
  assert.equal(res.status, 503);
  assert.ok((res.body as Any).title);
  assert.equal((await inject('GET', '/api/v1/services')).body && server.checks.engine.all().length, 0);
  const { n } = server.deps.store.read.prepare('SELECT count(*) AS n FROM checks').get() as { n: number };
  assert.equal(n, 0);
  await server.deps.store.writer.run((db) => db.exec('PRAGMA max_page_count = 1073741823'));
  assert.equal((await inject('POST', '/api/v1/checks', big)).status, 201);
});

test('a miss that could not be stored leaves a fallback deadline: the heartbeat is still watched', async (t) => {
  const { server, clock, engine, inject, id, path } = await heartbeatServer();
  t.after(() => server.dispose());
  let refuse = true;
  server.deps.events.subscribe((_db, events) => {
    if (refuse && events.some((e) => e.type === 'check.transition' && e.to === 'down'))
      throw new Error('the incident could not be opened');
  });
  assert.equal((await inject('GET', path)).status, 200);
  await clock.advance(65 * 60_000);
  await engine.flush();
  assert.equal(engine.get(id)!.rec.state.status, 'up', 'the miss rolled back');
  refuse = false;
  await clock.advance(60_000);
  await engine.flush();
  assert.equal(engine.get(id)!.rec.state.status, 'down', 'the fallback deadline recorded the miss');
  assert.ok(server.checks.engine.get(id)!.hb!.expectedAt > clock.now(), 'and the next deadline is set');
});

test('a result of a definition changed meanwhile is dropped, not applied to the new one', async (t) => {
  const { server, clock, engine, inject } = await checkServer({ store: { windowMs: 300 } });
  t.after(() => server.dispose());
  const { id } = (await inject('POST', '/api/v1/checks', web)).body as Any;
  await clock.advance(0);
  await engine.flush();
  const runs = () =>
    (
      server.deps.store.read.prepare('SELECT count(*) AS n FROM check_runs WHERE check_id = ?').get(id) as {
        n: number;
      }
    ).n;
  assert.equal(runs(), 1);
  // The next run's result waits for the group-commit window; the check is changed meanwhile.
  await clock.advance(10_000);
  assert.equal(
    (await inject('PUT', `/api/v1/checks/${id}`, { ...web, target: 'http://127.0.0.1:10/' })).status,
    200,
  );
  // The changed check's run reaches a closed port and its result waits out the window: wait for it,
  // then as long again for a result of the old definition that should have been dropped.
  await within(10_000, 'the changed check ran at once', () => runs() >= 2);
  await engine.flush();
  await new Promise((r) => setTimeout(r, 350));
  await engine.flush();
  assert.equal(runs(), 2, 'the changed check ran at once; the old run was dropped');
});

test('a ping for a check deleted in the same transaction answers 404 and raises no event', async (t) => {
  const { server, inject, id, path } = await heartbeatServer({ store: { maxWaitMs: 5000 } });
  t.after(() => server.dispose());
  assert.equal((await inject('GET', path)).status, 200);
  const events: string[] = [];
  server.deps.events.subscribe((_db, list) => {
    for (const e of list) if (e.type === 'check.transition') events.push(`${e.from}->${e.to}`);
  });
  const other = new DatabaseSync(join(server.dataDir, 'mon.db'));
  other.exec('BEGIN IMMEDIATE');
  const deleted = inject('DELETE', `/api/v1/checks/${id}`);
  // The ping reaches the writer after the deletion (it has no session to look up): both wait on the lock.
  while (server.deps.store.writer.depth === 0) await new Promise((r) => setImmediate(r));
  const ping = inject('GET', `${path}/fail`);
  await new Promise((r) => setTimeout(r, 50));
  other.exec('ROLLBACK');
  other.close();
  assert.equal((await deleted).status, 204);
  assert.equal((await ping).status, 404);
  assert.deepEqual(events, []);
});
