import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRUNE_CHUNK_ROWS } from '../store/pruning.ts';
import type { WriteFn } from '../store/writer.ts';
import { pruneHosts } from './housekeeping.ts';
import { addHostSample, HOST_METRICS, type HostMetrics } from './rollups.ts';
import { hostServer, T0 } from './testkit.ts';

const DAY = 86_400_000;

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
