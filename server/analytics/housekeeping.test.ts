import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { FakeClock } from '../clock.ts';
import { FIRST_PASS_DELAY_MS } from '../housekeeping.ts';
import type { WriteFn } from '../store/writer.ts';
import { createTestServer, memoryLog, type TestServer, within } from '../testing.ts';
import { createAnalyticsHousekeeping, pruneAnalytics } from './housekeeping.ts';
import { hourlyKeptFrom, pageVitalsKeptFrom, RAW_RETENTION_MS } from './retention.ts';
import { engage, jsError, knowSites, rows, store, view } from './storage-testkit.ts';
import type { VisitorIds } from './visitors.ts';

const NOW = Date.UTC(2026, 2, 10, 12, 30);

async function server(t: TestContext, clock = new FakeClock(NOW)): Promise<TestServer> {
  const s = await createTestServer({ clock });
  t.after(() => s.dispose());
  // Known sites: the data of a site mon does not know goes whole once old (site-removal.ts).
  await knowSites(s, 'shop.example', 'blog.example');
  return s;
}

/** A visit with an engagement, its Web Vitals and an error, at `ts`. */
const visitAt = (ts: number, visitor: string) => [
  view({ ts, visitor, page: '/a' }),
  engage({ ts: ts + 1_000, visitor, page: '/a', engagedMs: 20_000, vitals: { lcp: 1_500 } }),
  jsError({ ts: ts + 2_000, visitor, message: 'boom' }),
];

const count = (s: TestServer, sql: string) => Number(rows(s, `SELECT count(*) AS n FROM ${sql}`)[0]!.n);

/** Rows of each kind, as `table res` → rows. */
function tally(s: TestServer) {
  return {
    sessions: count(s, 'analytics_sessions'),
    views: count(s, 'analytics_views'),
    totalsHours: count(s, "analytics_totals WHERE res = 'h'"),
    totalsDays: count(s, "analytics_totals WHERE res = 'd'"),
    dimsHours: count(s, "analytics_dims WHERE res = 'h'"),
    dimsDays: count(s, "analytics_dims WHERE res = 'd'"),
    vitalsHours: count(s, "analytics_vitals WHERE res = 'h'"),
    vitalsDays: count(s, "analytics_vitals WHERE res = 'd' AND page = ''"),
    pageVitalsDays: count(s, "analytics_vitals WHERE res = 'd' AND page <> ''"),
    errorHours: count(s, "js_error_counts WHERE res = 'h'"),
    errorDays: count(s, "js_error_counts WHERE res = 'd'"),
    errorGroups: count(s, 'js_error_groups'),
  };
}

test('raw data, hourly rollups and single pages’ vitals past RAW_RETENTION_MS are deleted; daily rollups and error groups seen since stay', async (t) => {
  const s = await server(t);
  const old = NOW - RAW_RETENTION_MS - 2 * DAY;
  const recent = NOW - DAY;
  await store(s, [...visitAt(old, 'old'), ...visitAt(recent, 'recent')]);
  const before = tally(s);
  const result = await pruneAnalytics(s.deps, { now: NOW });
  assert.deepEqual(tally(s), {
    sessions: 1,
    views: 1,
    totalsHours: 1,
    totalsDays: 2,
    dimsHours: before.dimsHours / 2,
    dimsDays: before.dimsDays,
    vitalsHours: 1,
    vitalsDays: 2,
    pageVitalsDays: 1,
    errorHours: 1,
    errorDays: 2,
    errorGroups: 1,
  });
  assert.ok(result.deleted > 0);
  // What stays is the recent day, whole.
  assert.deepEqual(rows(s, "SELECT at FROM analytics_totals WHERE res = 'h'"), [
    { at: recent - (recent % HOUR) },
  ]);
  assert.deepEqual(rows(s, 'SELECT visitor FROM analytics_sessions'), [{ visitor: 'recent' }]);
});

test('a visitor’s page views of a day go with its first visit of that day, as docs/analytics.md says', async (t) => {
  const s = await server(t);
  const day = Date.UTC(2026, 1, 1);
  // One visitor id, two visits of the day: at 00:10 (two views) and at 20:00.
  await store(s, [
    view({ ts: day + 10 * MINUTE, page: '/a' }),
    view({ ts: day + 20 * MINUTE, page: '/b' }),
    view({ ts: day + 20 * HOUR, page: '/c' }),
  ]);
  assert.deepEqual([tally(s).sessions, tally(s).views], [2, 3]);
  // The first visit began more than RAW_RETENTION_MS ago, the second not: the views of both go.
  await pruneAnalytics(s.deps, { now: day + RAW_RETENTION_MS + HOUR });
  assert.deepEqual([tally(s).sessions, tally(s).views], [1, 0]);
  await pruneAnalytics(s.deps, { now: day + RAW_RETENTION_MS + 20 * HOUR + 1 });
  assert.deepEqual([tally(s).sessions, tally(s).views], [0, 0]);
});

test('error groups not seen for RAW_RETENTION_MS are deleted with their counts; groups seen since stay', async (t) => {
  const s = await server(t);
  const old = NOW - RAW_RETENTION_MS - 2 * DAY;
  await store(s, [
    jsError({ ts: old, visitor: 'a', message: 'gone for good' }),
    jsError({ ts: old, visitor: 'a', message: 'still here' }),
    jsError({ ts: NOW - DAY, visitor: 'b', message: 'still here' }),
    jsError({ ts: old, visitor: 'a', message: 'gone too', site: 'blog.example' }),
  ]);
  await pruneAnalytics(s.deps, { now: NOW });
  assert.deepEqual(rows(s, 'SELECT site, message FROM js_error_groups'), [
    { site: 'shop.example', message: 'still here' },
  ]);
  // The kept group's days, old and recent; no count of a deleted group is left behind.
  assert.deepEqual(
    rows(
      s,
      "SELECT c.at FROM js_error_counts c JOIN js_error_groups g ON g.id = c.group_id WHERE c.res = 'd'",
    ),
    [{ at: old - (old % DAY) }, { at: NOW - DAY - ((NOW - DAY) % DAY) }],
  );
  assert.equal(count(s, 'js_error_counts'), 3);
});

test('what reads may count on: hours from hourlyKeptFrom, single pages’ days from pageVitalsKeptFrom', async (t) => {
  const s = await server(t);
  const firstHour = hourlyKeptFrom(NOW);
  const firstDay = pageVitalsKeptFrom(NOW);
  await store(s, [
    ...visitAt(firstHour - HOUR, 'a'),
    ...visitAt(firstHour, 'b'),
    ...visitAt(firstDay - DAY, 'c'),
    ...visitAt(firstDay, 'd'),
  ]);
  await pruneAnalytics(s.deps, { now: NOW });
  assert.equal(rows(s, "SELECT 1 FROM analytics_totals WHERE res = 'h' AND at = ?", firstHour).length, 1);
  assert.equal(rows(s, "SELECT 1 FROM analytics_totals WHERE res = 'h' AND at < ?", firstHour).length, 0);
  assert.equal(rows(s, "SELECT 1 FROM analytics_vitals WHERE page = '/a' AND at = ?", firstDay).length, 1);
  assert.equal(rows(s, "SELECT 1 FROM analytics_vitals WHERE page = '/a' AND at < ?", firstDay).length, 0);
});

test('pruning goes in writer jobs of at most chunkRows rows (and one visitor’s page views) until everything old is gone', async (t) => {
  const s = await server(t);
  const old = NOW - RAW_RETENTION_MS - DAY;
  // 60 visitors over 60 hours: raw rows, hours, errors.
  await store(s, Array.from({ length: 60 }, (_, i) => visitAt(old - i * HOUR, `v${i}`)).flat());
  const sizes: number[] = [];
  const writer = s.deps.store.writer;
  const run = writer.run.bind(writer);
  writer.run = (<T>(fn: WriteFn<T>) =>
    run((db, tx) => {
      const before = db.prepare('SELECT total_changes() AS n').get()!.n as number;
      const value = fn(db, tx);
      sizes.push((db.prepare('SELECT total_changes() AS n').get()!.n as number) - before);
      return value;
    })) as typeof writer.run;
  const result = await pruneAnalytics(s.deps, { now: NOW, chunkRows: 50 });
  writer.run = run;
  assert.ok(result.jobs > 5, `${result.jobs} jobs`);
  assert.ok(
    sizes.every((n) => n <= 50),
    sizes.join(' '),
  );
  assert.equal(
    sizes.reduce((a, b) => a + b, 0),
    result.deleted,
  );
  assert.deepEqual(
    [tally(s).sessions, tally(s).views, tally(s).totalsHours, tally(s).dimsHours, tally(s).errorHours],
    [0, 0, 0, 0, 0],
  );
});

test('a minute after start, then every hour on the clock: the visitor salts, then a pass', async (t) => {
  const clock = new FakeClock(NOW);
  const s = await server(t, clock);
  await store(s, visitAt(NOW - RAW_RETENTION_MS - HOUR, 'old'));
  const pruned: number[] = [];
  const visitors: VisitorIds = {
    idOf: () => Promise.reject(new Error('not used')),
    dayBeforeIdOf: () => null,
    prune: async (now) => {
      pruned.push(now);
    },
  };
  const housekeeping = createAnalyticsHousekeeping(s.deps, visitors);
  // The server's own housekeeping has run its first pass: the old visit is back for this one's.
  await clock.advance(FIRST_PASS_DELAY_MS);
  await store(s, visitAt(NOW - RAW_RETENTION_MS - HOUR, 'old'));
  const started = clock.now();
  housekeeping.start();
  t.after(() => housekeeping.stop());
  await clock.advance(FIRST_PASS_DELAY_MS - 1);
  await housekeeping.idle();
  assert.equal(tally(s).sessions, 1, 'nothing before the first minute');
  await clock.advance(1);
  await housekeeping.idle();
  assert.equal(tally(s).sessions, 0);
  assert.deepEqual(pruned, [started + FIRST_PASS_DELAY_MS]);
  await clock.advance(HOUR);
  await housekeeping.idle();
  assert.deepEqual(pruned, [started + FIRST_PASS_DELAY_MS, started + FIRST_PASS_DELAY_MS + HOUR]);
});

/** The days of the visitor-id salts stored. */
const saltDays = (s: TestServer) => rows(s, 'SELECT day FROM analytics_salts ORDER BY day').map((r) => r.day);

async function addSalts(s: TestServer, days: number[]): Promise<void> {
  await s.deps.store.writer.run((db) => {
    for (const day of days)
      db.prepare('INSERT INTO analytics_salts (day, salt) VALUES (?, ?)').run(day, Buffer.alloc(32));
  });
}

test('a restarted server deletes a salt older than 48 hours within a minute', async (t) => {
  // 01:00 UTC: the salt of two days ago began 49 hours ago, yesterday's 25.
  const today = Date.UTC(2026, 2, 10);
  const first = await createTestServer({ clock: new FakeClock(today - DAY) });
  await addSalts(first, [today - 2 * DAY, today - DAY]);
  await first.close();
  const clock = new FakeClock(today + HOUR);
  const again = await createTestServer({ clock, dataDir: first.dataDir });
  t.after(() => again.dispose());
  assert.deepEqual(saltDays(again), [today - 2 * DAY, today - DAY]);
  await clock.advance(FIRST_PASS_DELAY_MS);
  await within(2_000, 'the salt of two days ago deleted', () => saltDays(again).length === 1);
  assert.deepEqual(saltDays(again), [today - DAY]);
});

test('a failing row pruning still deletes the salts, and says so in the log', async (t) => {
  const today = Date.UTC(2026, 2, 10);
  const clock = new FakeClock(today + HOUR);
  const { log, text } = memoryLog();
  const s = await createTestServer({ clock, log });
  t.after(() => s.dispose());
  await addSalts(s, [today - 2 * DAY, today - DAY]);
  // Page views without their table: pruning raw data fails at its first part.
  await s.deps.store.writer.run((db) =>
    db.exec('ALTER TABLE analytics_views RENAME TO analytics_views_gone'),
  );
  await clock.advance(HOUR);
  await within(2_000, 'the pass logged', () => text().includes('analytics data not pruned'));
  assert.deepEqual(saltDays(s), [today - DAY]);
});
