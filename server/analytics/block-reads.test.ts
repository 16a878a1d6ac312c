import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AnalyticsList, AnalyticsListRead, AnalyticsRead } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../../protocol/durations.ts';
import type { TestServer } from '../testing.ts';
import { BLOCK_VALUES, writeDayBlocks } from './block-writes.ts';
import { isBlock } from './blocks.ts';
import { EXACT_DAY_ROWS } from './lists.ts';
import { spanPieces } from './pieces.ts';
import { readSpan } from './ranges.ts';
import { readServer, writeDims, writeErrorGroup, writeTotals, writeVitals } from './read-testkit.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);
const TODAY = Date.UTC(2026, 2, 10);
const SHOP = 'shop.example';

async function server() {
  const kit = await readServer(NOW);
  after(() => kit.server.dispose());
  return kit;
}

/** A deterministic spread of counts, 1 to 50. */
const spread = (i: number, j: number) => 1 + ((i * 7919 + j * 104_729) % 50);

type DimRow = [AnalyticsList, string, number, number];

/** The list rows of the day `d` days before today: a small site, 60 pages over the year, 12 a day. */
function smallDay(d: number): DimRow[] {
  const rows: DimRow[] = [];
  for (let p = 0; p < 12; p++) rows.push(['pages', `/p${(d * 5 + p) % 60}`, spread(d, p), 2 * spread(p, d)]);
  for (let r = 0; r < 4; r++)
    rows.push(['referrers', `r${(d + r) % 20}.example`, spread(d, r + 50), spread(r, d)]);
  rows.push(['countries', d % 3 === 0 ? 'FR' : 'DE', spread(d, 9), spread(d, 10)]);
  return rows;
}

const DAYS = 420;

/** Totals, lists, Web Vitals over every page and an error group's counts for DAYS days up to today. */
async function writeSmallSite(s: TestServer): Promise<void> {
  const writes: Promise<unknown>[] = [];
  for (let d = 0; d < DAYS; d++) {
    const at = TODAY - d * DAY;
    writes.push(
      writeTotals(s, SHOP, 'd', at, {
        visitors: spread(d, 1),
        views: 3 * spread(d, 2),
        visits: spread(d, 3),
      }),
      writeDims(s, SHOP, 'd', at, smallDay(d)),
      writeVitals(s, SHOP, 'd', at, '', 'lcp', [1000 + 10 * (d % 70), 2000 + d]),
      writeVitals(s, SHOP, 'd', at, '', 'cls', [(d % 30) / 100]),
    );
  }
  const counts = (every: number): ['d', number, number][] =>
    Array.from({ length: DAYS / every }, (_, i) => ['d', TODAY - i * every * DAY, 1 + (i % 4)]);
  writes.push(
    writeErrorGroup(s, {
      site: SHOP,
      fingerprint: 'f1',
      message: 'daily',
      firstSeen: TODAY - (DAYS - 1) * DAY,
      lastSeen: NOW - HOUR,
      counts: counts(1),
    }),
    writeErrorGroup(s, {
      site: SHOP,
      fingerprint: 'f2',
      message: 'every third day',
      firstSeen: TODAY - (DAYS - 3) * DAY,
      lastSeen: NOW - 2 * HOUR,
      counts: counts(3),
    }),
  );
  await Promise.all(writes);
}

/** Ranges aligned to days, hours or nothing, up to 400 days. */
const ranges = [
  'range=7d',
  'range=30d',
  'range=1y',
  `from=${NOW - 400 * DAY}&to=${NOW}`,
  `from=${NOW - 400 * DAY + 7 * HOUR + 123}&to=${NOW - 3 * HOUR - 45}`,
  `from=${TODAY - 255 * DAY}&to=${TODAY - DAY}`,
  `from=${TODAY - 130 * DAY - 5 * HOUR}&to=${TODAY - 17 * DAY + 11 * HOUR}`,
  `from=${TODAY - 64 * DAY}&to=${TODAY - 32 * DAY}`,
  `from=${TODAY - 9 * DAY + HOUR}&to=${TODAY - 2 * DAY - HOUR}`,
];

const urls = ranges.flatMap((range) => [
  `/api/v1/analytics?site=${SHOP}&${range}`,
  `/api/v1/analytics/pages?site=${SHOP}&${range}&limit=1000`,
  `/api/v1/analytics/pages?site=${SHOP}&${range}&search=P1&limit=5`,
  `/api/v1/analytics/referrers?site=${SHOP}&${range}&search=r1`,
]);

test('long ranges read from blocks answer as the days do: lists, search and total, series, previous period, Web Vitals, errors', async () => {
  const { server: s, get } = await server();
  await writeSmallSite(s);
  const fromDays = await Promise.all(urls.map(async (url) => (await get(url)).body));

  await writeDayBlocks(s.deps.store.writer, { now: NOW });
  for (const [i, url] of urls.entries()) {
    const { status, body } = await get(url);
    assert.equal(status, 200, url);
    assert.deepEqual(body, fromDays[i], url);
  }
  // The long reads sum a few blocks instead of hundreds of days.
  const year = spanPieces(s.deps.store.read, SHOP, readSpan(NOW - 365 * DAY, NOW, NOW));
  assert.ok(year.length <= 19, `${year.length} pieces`);
  assert.ok(year.filter(isBlock).length >= 5, year.map((p) => p.res).join(' '));

  // Against the day rows themselves: a year of pages, every value summed over its days.
  const first = Math.floor((NOW - 365 * DAY) / DAY);
  const truth = new Map<string, { visitors: number; views: number }>();
  for (let d = 0; d <= TODAY / DAY - first; d++) {
    for (const [list, value, visitors, views] of smallDay(d)) {
      if (list !== 'pages') continue;
      const sum = truth.get(value) ?? { visitors: 0, views: 0 };
      truth.set(value, { visitors: sum.visitors + visitors, views: sum.views + views });
    }
  }
  const pages = (await get(`/api/v1/analytics/pages?site=${SHOP}&range=1y&limit=1000`))
    .body as AnalyticsListRead;
  assert.equal(pages.exact, true);
  assert.equal(pages.total, truth.size);
  assert.deepEqual(
    pages.rows,
    [...truth]
      .map(([value, sums]) => ({ value, ...sums }))
      .sort((a, b) => b.views - a.views || (a.value < b.value ? -1 : 1)),
  );
  const overview = (await get(`/api/v1/analytics?site=${SHOP}&range=1y`)).body as AnalyticsRead;
  assert.ok(overview.vitals.overall.lcp !== null && overview.vitals.overall.cls !== null);
  // Errors over a month, whose days include blocks (a year leaves them out: retention.ts).
  const month = readSpan(NOW - 30 * DAY, NOW, NOW);
  assert.ok(spanPieces(s.deps.store.read, SHOP, month).some(isBlock));
  const errors = ((await get(`/api/v1/analytics?site=${SHOP}&range=30d`)).body as AnalyticsRead).errors;
  assert.ok(errors?.length === 2 && errors.every((g) => g.count > 0), JSON.stringify(errors));
});

/** Day `d` of a busy site's `list`: ten clear favourites, and `tail` values seen that day only. */
function busyDay(d: number, tail: number, list: AnalyticsList = 'pages'): DimRow[] {
  const rows: DimRow[] = [];
  for (let i = 0; i < 10; i++) rows.push([list, `/top-${i}`, 500 - i, 10_000 - 100 * i]);
  for (let j = 0; j < tail; j++) rows.push([list, `/tail-${d}-${j}`, 1, 1 + (j % 5)]);
  return rows;
}

/** Writes `days` days up to today, `rows(d)` on the day `d` days before today. */
async function writeDays(s: TestServer, days: number, rows: (d: number) => DimRow[]): Promise<void> {
  await Promise.all(
    Array.from({ length: days }, (_, d) => writeDims(s, SHOP, 'd', TODAY - d * DAY, rows(d))),
  );
}

test('a week of 3,500 pages a day, 3,000 of them new each day, reads the days its blocks left out and is exact', async () => {
  const { server: s, get } = await server();
  const day = (d: number): DimRow[] => [
    ...Array.from({ length: 500 }, (_, p): DimRow => ['pages', `/every-day-${p}`, 3, 4 + (p % 7)]),
    ...Array.from({ length: 3000 }, (_, p): DimRow => ['pages', `/new-${d}-${p}`, 1, 1 + (p % 3)]),
  ];
  await writeDays(s, 10, day);
  const url = {
    week: `/api/v1/analytics/pages?site=${SHOP}&range=7d&limit=1000`,
    search: `/api/v1/analytics/pages?site=${SHOP}&range=7d&search=NEW-3-&limit=10`,
    overview: `/api/v1/analytics?site=${SHOP}&range=7d`,
  };
  const before = await Promise.all(Object.values(url).map(async (u) => (await get(u)).body));

  await writeDayBlocks(s.deps.store.writer, { now: NOW });
  const week = spanPieces(s.deps.store.read, SHOP, readSpan(NOW - 7 * DAY, NOW, NOW));
  assert.ok(week.some(isBlock), week.map((p) => p.res).join(' '));
  const after = await Promise.all(Object.values(url).map(async (u) => (await get(u)).body));
  assert.deepEqual(after, before);
  const [list, search, overview] = after as [AnalyticsListRead, AnalyticsListRead, AnalyticsRead];
  // The range touches eight days.
  assert.equal(list.total, 500 + 8 * 3000);
  assert.equal(list.exact, true);
  assert.equal(search.total, 3000);
  assert.equal(search.exact, true);
  assert.deepEqual(overview.dimensions.pages, { rows: list.rows.slice(0, 10), total: 24_500, exact: true });
});

test('a list whose blocks left out more day rows than a read takes is read from the blocks, and says so', async () => {
  const { server: s, get } = await server();
  // More than EXACT_DAY_ROWS in a month: the blocks' days cannot all be read.
  const PAGES_A_DAY = 4000;
  assert.ok(29 * PAGES_A_DAY > EXACT_DAY_ROWS && 8 * PAGES_A_DAY <= EXACT_DAY_ROWS);
  await writeDays(s, 32, (d) => busyDay(d, PAGES_A_DAY - 10));
  const url = {
    week: `/api/v1/analytics/pages?site=${SHOP}&range=7d&limit=1000`,
    month: `/api/v1/analytics/pages?site=${SHOP}&range=30d&limit=1000`,
    search: `/api/v1/analytics/pages?site=${SHOP}&range=30d&search=TOP-`,
  };
  const before = {
    week: (await get(url.week)).body as AnalyticsListRead,
    month: (await get(url.month)).body as AnalyticsListRead,
    search: (await get(url.search)).body as AnalyticsListRead,
  };
  assert.equal(before.month.exact, true);
  assert.equal(before.month.total, 10 + 31 * (PAGES_A_DAY - 10));

  await writeDayBlocks(s.deps.store.writer, { now: NOW });
  // A week: the blocks that left pages out hold fewer than EXACT_DAY_ROWS day rows; their days are read.
  assert.deepEqual((await get(url.week)).body, before.week);

  // A month: the blocks' first BLOCK_VALUES pages are read, and the list says so.
  const month = (await get(url.month)).body as AnalyticsListRead;
  assert.equal(month.exact, false);
  assert.equal(BLOCK_VALUES, 1000);
  // The favourites are in every block: their counts are whole.
  assert.deepEqual(month.rows.slice(0, 10), before.month.rows.slice(0, 10));
  // Pages left out of a block are short or missing; never counted more than they were.
  const truth = new Map(before.month.rows.map((row) => [row.value, row]));
  const read = new Map(month.rows.map((row) => [row.value, row]));
  assert.ok(month.total >= BLOCK_VALUES && month.total < before.month.total, `total ${month.total}`);
  for (const [value, row] of read) {
    const whole = truth.get(value);
    if (!whole) continue; // beyond the first 1,000 of the exact read
    assert.ok(row.views <= whole.views && row.visitors <= whole.visitors, value);
  }
  const found = (await get(url.search)).body as AnalyticsListRead;
  assert.deepEqual(found.rows, before.search.rows);
  assert.equal(found.total, 10);
  assert.equal(found.exact, false);
  // Other lists are whole.
  const countries = (await get(`/api/v1/analytics?site=${SHOP}&range=30d`)).body as AnalyticsRead;
  assert.equal(countries.dimensions.pages.exact, false);
  assert.equal(countries.dimensions.countries.exact, true);
});

test("the overview's lists share the day rows a read takes: pages first, then the others while they fit", async () => {
  const { server: s, get } = await server();
  // A month of pages fits in EXACT_DAY_ROWS, and so does one of referrers, but not both.
  const pages = 3000;
  const referrers = 1500;
  assert.ok(31 * pages <= EXACT_DAY_ROWS && 29 * (pages + referrers) > EXACT_DAY_ROWS);
  await writeDays(s, 32, (d) => [...busyDay(d, pages - 10), ...busyDay(d, referrers - 10, 'referrers')]);
  await writeDayBlocks(s.deps.store.writer, { now: NOW });

  const overview = (await get(`/api/v1/analytics?site=${SHOP}&range=30d`)).body as AnalyticsRead;
  const list = async (name: AnalyticsList) =>
    (await get(`/api/v1/analytics/${name}?site=${SHOP}&range=30d&limit=10`)).body as AnalyticsListRead;
  const [pagesList, referrersList] = [await list('pages'), await list('referrers')];
  assert.equal(pagesList.exact, true);
  assert.equal(referrersList.exact, true);
  assert.deepEqual(overview.dimensions.pages, {
    rows: pagesList.rows,
    total: pagesList.total,
    exact: true,
  });
  assert.equal(overview.dimensions.referrers.exact, false);
  assert.ok(overview.dimensions.referrers.total < referrersList.total);
});
