import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { DAY, HOUR } from '../protocol/durations.ts';
import type { Principal } from './auth/access.ts';
import { FakeClock } from './clock.ts';
import type { Deps } from './deps.ts';
import { FIRST_PASS_DELAY_MS, housekeeping, housekeepingJobs, PASS_EVERY_MS } from './housekeeping.ts';
import { createMetrics } from './metrics.ts';
import { SETTLED_KEEP_MS } from './notify/outbox.ts';
import { queryPlan } from './store/query-plan.ts';
import { int, scalar } from './store/rows.ts';
import { createTestServer, memoryLog, within } from './testing.ts';

const T0 = Date.UTC(2026, 5, 1);
const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

/** The value of one series in a Prometheus scrape. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  assert.ok(line, `${series} is scraped`);
  return Number(line.slice(series.length + 1));
}

test('every housekeeping job prunes a minute after start: a server restarted more often than hourly still prunes, and /metrics shows it', async (t) => {
  const clock = new FakeClock(T0);
  const { log, lines } = memoryLog();
  const server = await createTestServer({ clock, log, authenticate: async () => admin });
  t.after(() => server.dispose());
  await server.deps.store.writer.run((db) => {
    const old = T0 - 3 * DAY;
    db.prepare("INSERT INTO host_rollups (host, res, bucket) VALUES ('web-1', 'm', ?)").run(old);
    db.prepare(
      `INSERT INTO check_rollups (check_id, res, bucket, up, down, degraded, lat_count, lat_sum, value_count, value_sum, hist)
       VALUES ('c1', 'm', ?, 1, 0, 0, 0, 0, 0, 0, '{}')`,
    ).run(old);
    db.prepare(
      `INSERT INTO windows (id, kind, scope, starts, ends, created_by, created_at, updated_at)
       VALUES (?, 'silence', 'all', 0, ?, 'test', 0, 0)`,
    ).run('a'.repeat(16), T0 - 31 * DAY);
  });
  const count = (table: string) => scalar(server.deps.store.read, `SELECT count(*) FROM ${table}`, int);

  await clock.advance(FIRST_PASS_DELAY_MS - 1);
  assert.equal(count('host_rollups'), 1, 'not before the minute');
  await clock.advance(1);
  await Promise.all([server.hosts.pruned(), server.checks.engine.pruned()]);
  assert.equal(count('host_rollups'), 0, 'host series pruned a minute after start, not an hour');
  assert.equal(count('check_rollups'), 0, 'check rollups too');
  assert.equal(count('windows'), 0, 'and ended windows');

  const scrape = (await server.app.inject({ method: 'GET', url: '/metrics' })).body;
  for (const job of housekeepingJobs) {
    assert.equal(
      sample(scrape, `mon_housekeeping_last_success_timestamp_seconds{job="${job}"}`),
      (T0 + FIRST_PASS_DELAY_MS) / 1000,
      job,
    );
    assert.ok(sample(scrape, `mon_housekeeping_duration_seconds{job="${job}"}`) >= 0);
  }
  const done = lines().filter((l) => l.message === 'housekeeping pass done');
  assert.deepEqual(done.map((l) => l.job).sort(), [...housekeepingJobs].sort());
  assert.equal(done.find((l) => l.job === 'hosts')?.deleted, 1);

  const file = join(server.dataDir, 'mon.db');
  assert.equal(sample(scrape, 'mon_db_bytes{file="db"}'), statSync(file).size);
  assert.ok(sample(scrape, 'mon_db_bytes{file="db"}') > 0);
  assert.equal(sample(scrape, 'mon_db_bytes{file="wal"}'), statSync(`${file}-wal`).size);
});

test('notifications no longer due are deleted 400 days after they were made, along their index', async (t) => {
  const clock = new FakeClock(T0);
  const server = await createTestServer({ clock });
  t.after(() => server.dispose());
  const old = T0 - SETTLED_KEEP_MS - 1;
  const recent = T0 - SETTLED_KEEP_MS + DAY;
  await server.deps.store.writer.run((db) => {
    db.prepare("INSERT INTO incidents (id, title, started_at) VALUES ('i1', 'down', ?)").run(old);
    const row = db.prepare(
      `INSERT INTO outbox (message_id, incident, channel, kind, change, message, created_at, state, due_at)
       VALUES (?, 'i1', 'ops', 'webhook', 'reminder', '{}', ?, ?, ?)`,
    );
    row.run('old-sent', old, 'sent', null);
    row.run('old-failed', old, 'failed', null);
    row.run('old-muted', old, 'muted', null);
    row.run('old-dropped', old, 'dropped', null);
    row.run('old-due', old, 'due', T0);
    row.run('recent-sent', recent, 'sent', null);
  });
  await clock.advance(FIRST_PASS_DELAY_MS);
  const count = () => scalar(server.deps.store.read, 'SELECT count(*) FROM outbox', int);
  await within(2_000, 'the pass deleted', () => count() === 2);
  const left = server.deps.store.read
    .prepare('SELECT message_id FROM outbox ORDER BY message_id')
    .all()
    .map((r) => r.message_id);
  assert.deepEqual(left, ['old-due', 'recent-sent'], 'a row still due is never deleted');
  assert.deepEqual(
    queryPlan(
      server.deps.store.read,
      "SELECT id FROM outbox WHERE state <> 'due' AND created_at < 0 LIMIT 10",
    ),
    ['SEARCH outbox USING INDEX outbox_settled (created_at<?)'],
  );
});

test('a pass that fails leaves the last success where it was, says so, and the next runs an hour later', async () => {
  const clock = new FakeClock(T0);
  const { log, lines } = memoryLog();
  const metrics = createMetrics();
  const deps = { clock, log, metrics } as unknown as Deps;
  let failing = true;
  const passes: number[] = [];
  const job = housekeeping(deps, 'windows', ({ now }) => [
    {
      failed: 'pruning ended windows failed',
      run: async () => {
        passes.push(now);
        if (failing) throw new Error('disk I/O error');
      },
    },
  ]);
  job.start();
  await clock.advance(FIRST_PASS_DELAY_MS);
  await job.idle();
  const last = async () =>
    sample(await metrics.text(), 'mon_housekeeping_last_success_timestamp_seconds{job="windows"}');
  assert.equal(await last(), 0);
  assert.ok(
    lines().some((l) => l.message === 'pruning ended windows failed' && l.error === 'Error: disk I/O error'),
  );
  failing = false;
  await clock.advance(PASS_EVERY_MS);
  await job.idle();
  assert.deepEqual(passes, [T0 + FIRST_PASS_DELAY_MS, T0 + FIRST_PASS_DELAY_MS + HOUR]);
  assert.equal(await last(), (T0 + FIRST_PASS_DELAY_MS + HOUR) / 1000);
  job.stop();
  await clock.advance(2 * PASS_EVERY_MS);
  assert.equal(passes.length, 2, 'no pass after stop');
});
