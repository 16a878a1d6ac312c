import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AnalyticsList, AnalyticsListRead, AnalyticsRead } from '../../protocol/analytics.ts';
import { DAY } from '../../protocol/durations.ts';
import { readServer, writeDims, writeTotals } from './read-testkit.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);
const SHOP = 'shop.example';
const NINE = Date.UTC(2026, 2, 10, 9);
const TEN = Date.UTC(2026, 2, 10, 10);

async function server() {
  const kit = await readServer(NOW);
  after(() => kit.server.dispose());
  return kit;
}

const listOf = async (get: (url: string) => Promise<{ body: unknown }>, list: AnalyticsList, query = '') =>
  (await get(`/api/v1/analytics/${list}?site=${SHOP}${query}`)).body as AnalyticsListRead;

test('a list sums its values over the buckets; pages rank by views, the others by visitors, ties by value', async () => {
  const { server: s, get } = await server();
  await writeDims(s, SHOP, 'h', NINE, [
    ['pages', '/', 5, 9],
    ['pages', '/pricing', 6, 6],
    ['pages', '/docs', 1, 2],
    ['referrers', 'news.example', 4, 4],
    ['referrers', 'search.example', 2, 20],
  ]);
  await writeDims(s, SHOP, 'h', TEN, [
    ['pages', '/docs', 2, 7],
    ['pages', '/blog', 1, 3],
    ['referrers', 'search.example', 2, 1],
    ['referrers', 'chat.example', 4, 1],
  ]);
  // Another site, the day rows and an hour before the range: not read.
  await writeDims(s, 'blog.example', 'h', TEN, [['pages', '/blog', 100, 100]]);
  await writeDims(s, SHOP, 'd', Date.UTC(2026, 2, 10), [['pages', '/blog', 100, 100]]);
  await writeDims(s, SHOP, 'h', NOW - 2 * DAY, [['pages', '/old', 100, 100]]);

  assert.deepEqual(await listOf(get, 'pages'), {
    list: 'pages',
    site: SHOP,
    rows: [
      { value: '/', visitors: 5, views: 9 },
      { value: '/docs', visitors: 3, views: 9 },
      { value: '/pricing', visitors: 6, views: 6 },
      { value: '/blog', visitors: 1, views: 3 },
    ],
    total: 4,
    exact: true,
  });
  assert.deepEqual((await listOf(get, 'referrers')).rows, [
    { value: 'chat.example', visitors: 4, views: 1 },
    { value: 'news.example', visitors: 4, views: 4 },
    { value: 'search.example', visitors: 4, views: 21 },
  ]);
});

test('search is a case-insensitive substring, in any script, with LIKE wildcards taken literally; total counts all matches', async () => {
  const { server: s, get } = await server();
  await writeDims(s, SHOP, 'h', TEN, [
    ['pages', '/Pricing', 3, 3],
    ['pages', '/pricing/teams', 2, 2],
    ['pages', '/a_b', 1, 1],
    ['pages', '/axb', 1, 1],
    ['pages', '/100%', 1, 1],
    ['pages', '/1000', 1, 1],
    ['pages', '/back\\slash', 1, 1],
    ['pages', '/über-uns', 1, 1],
    ['pages', '/ÜBERSICHT', 1, 1],
  ]);
  const values = async (search: string, limit = 100) =>
    await listOf(get, 'pages', `&search=${encodeURIComponent(search)}&limit=${limit}`);

  assert.deepEqual(
    (await values('PRIC')).rows.map((r) => r.value),
    ['/Pricing', '/pricing/teams'],
  );
  assert.deepEqual(
    (await values('_')).rows.map((r) => r.value),
    ['/a_b'],
  );
  assert.deepEqual(
    (await values('%')).rows.map((r) => r.value),
    ['/100%'],
  );
  assert.deepEqual(
    (await values('\\')).rows.map((r) => r.value),
    ['/back\\slash'],
  );
  // Page paths are stored decoded: letters beyond ASCII match in any case too.
  for (const search of ['Über', 'ÜBER', 'über']) {
    assert.deepEqual(
      (await values(search)).rows.map((r) => r.value),
      ['/ÜBERSICHT', '/über-uns'],
      search,
    );
  }
  assert.deepEqual((await values('nothing')).rows, []);
  const limited = await values('/', 2);
  assert.equal(limited.rows.length, 2);
  assert.equal(limited.total, 9);
  assert.equal((await values('pricing', 1)).total, 2);
});

test('limit is 1 to 1000, 100 by default; the overview shows ten rows of each list and its total', async () => {
  const { server: s, get } = await server();
  const pages = Array.from(
    { length: 120 },
    (_, i) =>
      ['pages', `/p${String(i).padStart(3, '0')}`, 1, 120 - i] as [AnalyticsList, string, number, number],
  );
  await writeDims(s, SHOP, 'h', TEN, pages);

  const byDefault = await listOf(get, 'pages');
  assert.equal(byDefault.rows.length, 100);
  assert.equal(byDefault.total, 120);
  assert.equal(byDefault.rows[0]!.value, '/p000');
  assert.equal((await listOf(get, 'pages', '&limit=1000')).rows.length, 120);
  assert.equal((await listOf(get, 'pages', '&limit=1')).rows.length, 1);
  for (const limit of ['0', '1001', 'ten', '1.5', '-1', '']) {
    const res = await get(`/api/v1/analytics/pages?limit=${limit}`);
    assert.equal(res.status, 422, limit);
    assert.equal(res.body.detail, 'limit: must be an integer from 1 to 1000', limit);
  }
  const long = await get(`/api/v1/analytics/pages?search=${'a'.repeat(2049)}`);
  assert.equal(long.status, 422);
  assert.equal(long.body.detail, 'search: must be at most 2048 characters');

  const read = (await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead;
  assert.equal(read.dimensions.pages.rows.length, 10);
  assert.equal(read.dimensions.pages.total, 120);
  assert.equal(read.dimensions.pages.rows[9]!.value, '/p009');
  assert.deepEqual(read.dimensions.countries, { rows: [], total: 0, exact: true });
  assert.deepEqual(Object.keys(read.dimensions), [
    'pages',
    'referrers',
    'countries',
    'devices',
    'browsers',
    'operatingSystems',
    'utmSources',
    'utmMediums',
    'utmCampaigns',
  ]);
});

test('campaign lists hold only the views of visits that carried the parameter', async () => {
  const { server: s, get } = await server();
  // 40 views in all; one visitor came with a campaign and viewed 3 pages.
  await writeTotals(s, SHOP, 'h', TEN, { visitors: 10, views: 40, visits: 10, bounces: 5 });
  await writeDims(s, SHOP, 'h', TEN, [
    ['utmSources', 'newsletter', 1, 3],
    ['utmCampaigns', 'spring', 1, 3],
    ['countries', 'DE', 10, 40],
  ]);
  assert.deepEqual((await listOf(get, 'utmCampaigns')).rows, [{ value: 'spring', visitors: 1, views: 3 }]);
  assert.deepEqual((await listOf(get, 'utmMediums')).rows, []);
  const read = (await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead;
  assert.equal(read.totals.views, 40);
  assert.deepEqual(read.dimensions.utmSources, {
    rows: [{ value: 'newsletter', visitors: 1, views: 3 }],
    total: 1,
    exact: true,
  });
});

test('an unknown list is a path mon does not have: 404', async () => {
  const { get } = await server();
  const res = await get('/api/v1/analytics/cities');
  assert.equal(res.status, 404);
  assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
  assert.match(res.body.detail, /^no list cities; lists: pages, referrers/);
});

test('a list over a week reads the daily rows', async () => {
  const { server: s, get } = await server();
  await writeDims(s, SHOP, 'd', Date.UTC(2026, 2, 9), [['devices', 'mobile', 4, 8]]);
  await writeDims(s, SHOP, 'd', Date.UTC(2026, 2, 10), [['devices', 'mobile', 1, 1]]);
  // The same visits' hour row is not counted again.
  await writeDims(s, SHOP, 'h', Date.UTC(2026, 2, 9, 3), [['devices', 'mobile', 4, 8]]);
  const week = await listOf(get, 'devices', '&range=7d');
  assert.deepEqual(week.rows, [{ value: 'mobile', visitors: 5, views: 9 }]);
});
