import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { type AnalyticsListRead, type AnalyticsRead, OTHER_VALUE } from '../../protocol/analytics.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { applyTrackerItems } from './apply.ts';
import { writeDayBlocks } from './block-writes.ts';
import { pruneAnalytics } from './housekeeping.ts';
import { MAX_LIST_LIMIT } from './lists.ts';
import { readServer, writeDims } from './read-testkit.ts';
import { rows, store, view } from './storage-testkit.ts';
import type { TrackerItem } from './types.ts';
import { valuesKept } from './value-caps.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);
const HOUR_14 = Date.UTC(2026, 2, 10, 14);
const DAY_10 = Date.UTC(2026, 2, 10);
const SHOP = 'shop.example';

async function server(t: TestContext) {
  const kit = await readServer(NOW);
  t.after(() => kit.server.dispose());
  return kit;
}

/** Page views of pages `/p-{from}` … of their own, each a new visitor's from a referrer of its own. */
const views = (from: number, count: number, ts = HOUR_14, prefix = '/p-'): TrackerItem[] =>
  Array.from({ length: count }, (_, i) =>
    view({
      ts: ts + i,
      visitor: `v${prefix}${from + i}`,
      page: `${prefix}${from + i}`,
      referrer: `r${from + i}.example`,
    }),
  );

type S = Awaited<ReturnType<typeof server>>['server'];

/** A list's rows in one period: how many, and the views of all and of OTHER_VALUE. */
function period(s: S, list: string, res: 'h' | 'd', at: number) {
  const [r] = rows(
    s,
    `SELECT count(*) AS n, sum(views) AS views, sum(CASE WHEN value = ?1 THEN views END) AS other
     FROM analytics_dims WHERE site = ?2 AND res = ?3 AND at = ?4 AND list = ?5`,
    OTHER_VALUE,
    SHOP,
    res,
    at,
    list,
  );
  return { rows: Number(r!.n), views: Number(r!.views), other: r!.other === null ? null : Number(r!.other) };
}

test('an hour keeps its first 1,000 pages and 250 referrers; values beyond add to (other), a value it has still counts in its own row, and the read is not exact', async (t) => {
  const { server: s, get } = await server(t);
  assert.equal(valuesKept('h', 'pages'), MAX_LIST_LIMIT);
  assert.equal(valuesKept('h', 'referrers'), 250);
  await store(s, views(0, 1_000));
  // Beyond the cap: five new pages, and a page the hour has.
  await store(s, [
    ...views(1_000, 5, HOUR_14 + 10 * MINUTE),
    view({ ts: HOUR_14 + 11 * MINUTE, visitor: 'w', page: '/p-7' }),
  ]);

  assert.deepEqual(period(s, 'pages', 'h', HOUR_14), { rows: 1_001, views: 1_006, other: 5 });
  assert.deepEqual(
    rows(s, `SELECT views FROM analytics_dims WHERE res = 'h' AND list = 'pages' AND value = '/p-7'`),
    [{ views: 2 }],
  );
  // Referrers: 250 of 1,006 visits' own, the rest in (other).
  assert.deepEqual(period(s, 'referrers', 'h', HOUR_14), { rows: 251, views: 1_006, other: 756 });
  // The day keeps 5,000 pages and 1,250 referrers: all of them here.
  assert.deepEqual(period(s, 'pages', 'd', DAY_10), { rows: 1_005, views: 1_006, other: null });
  assert.deepEqual(period(s, 'referrers', 'd', DAY_10), { rows: 1_006, views: 1_006, other: null });

  const hours = (await get(`/api/v1/analytics/pages?site=${SHOP}&range=24h&limit=2`))
    .body as AnalyticsListRead;
  assert.deepEqual(hours.rows, [
    { value: OTHER_VALUE, visitors: 5, views: 5 },
    { value: '/p-7', visitors: 2, views: 2 },
  ]);
  assert.equal(hours.total, 1_001);
  assert.equal(hours.exact, false);
  const overview = (await get(`/api/v1/analytics?site=${SHOP}&range=24h`)).body as AnalyticsRead;
  assert.equal(overview.dimensions.pages.exact, false);
  assert.equal(overview.dimensions.referrers.exact, false);
  assert.equal(overview.dimensions.countries.exact, true);
  // By the day nothing went beyond: exact.
  const days = (await get(`/api/v1/analytics/pages?site=${SHOP}&range=7d&limit=1`)).body as AnalyticsListRead;
  assert.deepEqual([days.total, days.exact], [1_005, true]);
});

test('the count of values survives batches and a rolled-back batch takes its values back', async (t) => {
  const { server: s } = await server(t);
  await store(s, views(0, 600));
  await assert.rejects(
    s.deps.store.writer.run((_db, tx) => {
      applyTrackerItems(tx, views(600, 600, HOUR_14 + MINUTE, '/gone-'));
      throw new Error('the batch fails');
    }),
    /the batch fails/,
  );
  // 400 more fit in the hour; the other 100 go to (other).
  await store(s, views(600, 500, HOUR_14 + 2 * MINUTE));
  assert.deepEqual(period(s, 'pages', 'h', HOUR_14), { rows: 1_001, views: 1_100, other: 100 });
  assert.deepEqual(rows(s, `SELECT count(*) AS n FROM analytics_dims WHERE value LIKE '/gone-%'`), [
    { n: 0 },
  ]);
  assert.deepEqual(
    rows(s, `SELECT res, n FROM analytics_dim_values WHERE site = ? AND list = 'pages' ORDER BY res`, SHOP),
    [
      { res: 'd', n: 1_100 },
      { res: 'h', n: 1_000 },
    ],
  );
});

test('a day keeps its first 5,000 pages: the hours keep theirs, the day adds the rest to (other)', async (t) => {
  const { server: s, get } = await server(t);
  for (let h = 0; h < 6; h++) await store(s, views(h * 1_000, 1_000, DAY_10 + (8 + h) * HOUR));
  assert.deepEqual(period(s, 'pages', 'h', DAY_10 + 13 * HOUR), { rows: 1_000, views: 1_000, other: null });
  assert.deepEqual(period(s, 'pages', 'd', DAY_10), { rows: 5_001, views: 6_000, other: 1_000 });
  assert.deepEqual(period(s, 'referrers', 'd', DAY_10), { rows: 1_251, views: 6_000, other: 4_750 });
  const days = (await get(`/api/v1/analytics?site=${SHOP}&range=7d`)).body as AnalyticsRead;
  assert.deepEqual(days.dimensions.pages.rows[0], { value: OTHER_VALUE, visitors: 1_000, views: 1_000 });
  assert.equal(days.dimensions.pages.exact, false);
});

test('blocks of days keep (other) as a value, and a read of them says it is not exact', async (t) => {
  const { server: s, get } = await server(t);
  // Two days over, with a block of their own (Date.UTC(2026, 2, 6) is an even day since 1970).
  const first = Date.UTC(2026, 2, 6);
  await writeDims(s, SHOP, 'd', first, [
    ['pages', '/', 5, 9],
    ['pages', OTHER_VALUE, 3, 4],
  ]);
  await writeDims(s, SHOP, 'd', first + DAY, [['pages', '/', 1, 1]]);
  await writeDims(s, SHOP, 'd', first, [['referrers', 'news.example', 1, 1]]);
  await writeDayBlocks(s.deps.store.writer, { now: NOW });
  assert.deepEqual(
    rows(s, `SELECT value, views FROM analytics_dims WHERE res = '2d' AND list = 'pages' ORDER BY value`),
    [
      { value: OTHER_VALUE, views: 4 },
      { value: '/', views: 10 },
    ],
  );
  const read = (await get(`/api/v1/analytics?site=${SHOP}&range=7d`)).body as AnalyticsRead;
  assert.deepEqual(read.dimensions.pages, {
    rows: [
      { value: '/', visitors: 6, views: 10 },
      { value: OTHER_VALUE, visitors: 3, views: 4 },
    ],
    total: 2,
    exact: false,
  });
  assert.equal(read.dimensions.referrers.exact, true);
});

test('housekeeping deletes the counts of periods that began more than two days ago', async (t) => {
  const { server: s } = await server(t);
  await store(s, [...views(0, 3, HOUR_14 - 3 * DAY), ...views(0, 2, HOUR_14 - DAY)]);
  const counts = () =>
    rows(s, 'SELECT res, at, n FROM analytics_dim_values WHERE list = ? ORDER BY at, res', 'pages');
  assert.equal(counts().length, 4);
  await pruneAnalytics(s.deps, { now: NOW });
  assert.deepEqual(counts(), [
    { res: 'd', at: DAY_10 - DAY, n: 2 },
    { res: 'h', at: HOUR_14 - DAY, n: 2 },
  ]);
});
