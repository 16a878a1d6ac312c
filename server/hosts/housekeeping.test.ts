import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRUNE_CHUNK_ROWS } from '../store/pruning.ts';
import { queryPlan } from '../store/query-plan.ts';
import type { WriteFn } from '../store/writer.ts';
import { GONE_ITEMS_SQL, ITEM_SERIES_SQL, pruneHosts, SHORT_LIVED_SQL } from './housekeeping.ts';
import { addHostSample, HOST_METRICS, type HostMetrics } from './rollups.ts';
import { container, hostServer, sample, T0, unit } from './testkit.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

test('every hour: old rollups, agent logs past 7 days or 10,000 lines, host events past 400 days and items gone a day are deleted', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const now = T0;
  const metrics = Object.fromEntries(HOST_METRICS.map((m) => [m, 1])) as HostMetrics;
  await kit.server.deps.store.writer.run((db) => {
    addHostSample(db, 'web-1', now - 3 * DAY, metrics);
    const log = db.prepare('INSERT INTO agent_logs (host, ts, level, text) VALUES (?, ?, ?, ?)');
    log.run('web-1', now - 8 * DAY, 'info', 'too old');
    for (let i = 0; i < 10_005; i++) log.run('web-1', now - 10_005 + i, 'info', `line ${i}`);
    for (let i = 0; i < 5; i++) log.run('web-2', now - DAY, 'info', `other ${i}`);
    const event = db.prepare(
      "INSERT INTO host_events (host, ts, kind, subject, service, detail) VALUES ('web-1', ?, 'restart', 'api', NULL, 'x')",
    );
    event.run(now - 401 * DAY);
    event.run(now - 399 * DAY);
    const item = db.prepare(
      `INSERT INTO host_items (host, kind, name, id, state, first_seen, updated_at, gone_at)
       VALUES ('web-1', 'container', ?, ?, 'exited', 0, 0, ?)`,
    );
    item.run('long-gone', 'a000000000000000', now - 2 * DAY);
    item.run('just-gone', 'b000000000000000', now - 3_600_000);
    item.run('here', 'c000000000000000', null);
    db.prepare('INSERT INTO hosts (name, created_at) VALUES (?, 0), (?, 0)').run('web-1', 'web-2');
  });
  await kit.clock.advance(3_600_000);
  await kit.server.hosts.pruned();

  assert.equal(
    kit.count("SELECT count(*) AS n FROM host_rollups WHERE res = 'm'"),
    0,
    'minutes are kept 2 days',
  );
  assert.equal(kit.count("SELECT count(*) AS n FROM host_rollups WHERE res = 'h'"), 1);
  assert.equal(kit.count("SELECT count(*) AS n FROM agent_logs WHERE host = 'web-1'"), 10_000);
  assert.equal(
    kit.count("SELECT count(*) AS n FROM agent_logs WHERE text IN ('too old', 'line 0', 'line 4')"),
    0,
  );
  assert.equal(
    kit.count("SELECT count(*) AS n FROM agent_logs WHERE text = 'line 5'"),
    1,
    'the newest are kept',
  );
  assert.equal(kit.count("SELECT count(*) AS n FROM agent_logs WHERE host = 'web-2'"), 5);
  assert.equal(kit.count('SELECT count(*) AS n FROM host_events WHERE ts = ?', now - 399 * DAY), 1);
  assert.equal(kit.count('SELECT count(*) AS n FROM host_events'), 1);
  assert.deepEqual(
    kit.db
      .prepare('SELECT name FROM host_items ORDER BY name')
      .all()
      .map((r) => r.name),
    ['here', 'just-gone'],
  );
});

test('pruning goes in writer jobs of at most 5,000 rows until everything old is gone', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const now = T0;
  await kit.server.deps.store.writer.run((db) => {
    const event = db.prepare(
      "INSERT INTO host_events (host, ts, kind, subject, service, detail) VALUES ('web-1', ?, 'restart', 'api', NULL, 'x')",
    );
    for (let i = 0; i < 12_000; i++) event.run(now - 401 * DAY - i);
    event.run(now - DAY);
  });
  const sizes: number[] = [];
  const writer = kit.server.deps.store.writer;
  const run = writer.run.bind(writer);
  writer.run = (<T>(fn: WriteFn<T>) =>
    run((db, tx) => {
      const before = kit.count('SELECT count(*) AS n FROM host_events');
      const result = fn(db, tx);
      sizes.push(before - (db.prepare('SELECT count(*) AS n FROM host_events').get() as { n: number }).n);
      return result;
    })) as typeof writer.run;
  t.after(() => {
    writer.run = run;
  });
  const pass = await pruneHosts(kit.server.deps);
  assert.equal(pass.deleted, 12_000);
  assert.ok(pass.jobs >= 3, `${pass.jobs} jobs`);
  assert.ok(Math.max(...sizes) <= PRUNE_CHUNK_ROWS, `jobs of ${sizes.join(', ')} rows`);
  assert.equal(kit.count('SELECT count(*) AS n FROM host_events'), 1);
});

test('a short-lived item gone a day loses its hour and day series, unless it lived an hour or was seen in the 15 days before', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('ci-1');
  // Samples every 15 s from `from` to the clock's now; `listed(i)` says what sample i lists.
  const send = async (from: number, count: number, listed: (i: number) => { c: string[]; u: string[] }) => {
    const frames = Array.from({ length: count }, (_, i) => {
      const { c, u } = listed(i);
      return sample(from + i * 15_000, {
        containers: c.map((name) => container({ name })),
        units: u.map((name) => unit({ name })),
      });
    });
    assert.equal((await kit.send(token, frames)).status, 200);
  };
  const series = (name: string, res: string) =>
    kit.count(
      "SELECT count(*) AS n FROM item_rollups WHERE host = 'ci-1' AND name = ? AND res = ?",
      name,
      res,
    );
  const rows = () =>
    kit.db
      .prepare("SELECT name FROM host_items WHERE host = 'ci-1' ORDER BY name")
      .all()
      .map((r) => r.name);

  // 65 minutes: db throughout, api for 65 minutes, the job for 30 s, backup.service for a minute.
  await kit.clock.advance(66 * 60_000);
  await send(T0, 262, (i) => ({
    c: ['db', ...(i < 261 ? ['api'] : []), ...(i < 2 ? ['job-1'] : [])],
    u: i < 4 ? ['backup.service'] : [],
  }));
  await kit.clock.advance(DAY);
  await kit.server.hosts.pruned();
  assert.deepEqual(rows(), ['api', 'db'], 'the job and the unit gone a day are forgotten; api is not yet');
  for (const name of ['job-1', 'backup.service']) {
    assert.deepEqual(
      ['m', 't', 'h', 'd'].map((res) => series(name, res)),
      [1, 1, 0, 0],
      `${name}: minute and 10-minute series kept, hour and day deleted`,
    );
  }
  await kit.clock.advance(2 * HOUR);
  await kit.server.hosts.pruned();
  assert.deepEqual(rows(), ['db']);
  assert.deepEqual(
    ['h', 'd'].map((res) => series('api', res)),
    [2, 1],
    'api lived an hour: its series stay',
  );

  // backup.service again, a day later: seen 15 days before (its 10-minute series), so it is kept.
  const again = kit.clock.now();
  await kit.clock.advance(60_000);
  await send(again, 5, (i) => ({ c: ['db'], u: i < 4 ? ['backup.service'] : [] }));
  await kit.clock.advance(DAY + HOUR);
  await kit.server.hosts.pruned();
  assert.deepEqual(rows(), ['db']);
  assert.equal(series('backup.service', 'h'), 1, 'its hour of today is kept');
  assert.equal(series('backup.service', 'd'), 1);
  assert.equal(series('db', 'h'), 3, 'a live item keeps its hours of both spells');
});

test('items gone a day are found along their index, and the rollups of short-lived ones deleted by their keys', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  for (const sql of [GONE_ITEMS_SQL, SHORT_LIVED_SQL, ITEM_SERIES_SQL]) {
    const plan = await kit.server.deps.store.writer.run((db) => queryPlan(db, sql));
    const why = `${sql}\n${plan.join('\n')}`;
    assert.ok(!plan.some((line) => line.startsWith('SCAN')), why);
    for (const line of plan.filter((l) => l.startsWith('SEARCH'))) {
      assert.match(
        line,
        /^SEARCH (i USING INDEX host_items_gone \(gone_at>\? AND gone_at<\?\)|\w+ USING PRIMARY KEY \(host=\? AND kind=\? AND name=\?)/,
        why,
      );
    }
  }
});
