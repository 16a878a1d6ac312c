import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AnalyticsRead } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { authTestServer } from '../auth/test-helpers.ts';
import { staticConfig } from '../config/service.ts';
import { readServer, writeDims, writeTotals } from './read-testkit.ts';
import { hourlyKeptFrom } from './retention.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);
const SHOP = 'shop.example';

async function server(options: { sites?: boolean } = {}) {
  const kit = await readServer(NOW, options);
  after(() => kit.server.dispose());
  return kit;
}

test('the last 24 hours: totals, hourly series zero-filled, and the 25 hours before', async () => {
  const { server: s, get } = await server();
  const at = (day: number, hour: number) => Date.UTC(2026, 2, day, hour);
  await writeTotals(s, SHOP, 'h', at(10, 10), {
    visitors: 3,
    views: 7,
    visits: 4,
    bounces: 1,
    engagedMs: 40_000,
  });
  await writeTotals(s, SHOP, 'h', at(10, 14), { visitors: 1, views: 1, visits: 1, bounces: 1 });
  // The hour before the span's first is the previous period's last; 25 hours before it, its first.
  await writeTotals(s, SHOP, 'h', at(8, 13), { visitors: 10, views: 20, visits: 5, bounces: 5 });
  await writeTotals(s, SHOP, 'h', at(9, 13), {
    visitors: 100,
    views: 200,
    visits: 50,
    bounces: 25,
    engagedMs: 500_000,
  });
  // Before the previous period, another site, and the day rows: none of them is read.
  await writeTotals(s, SHOP, 'h', at(8, 12), { visitors: 1000, views: 1000 });
  await writeTotals(s, 'blog.example', 'h', at(10, 10), { visitors: 50, views: 50 });
  await writeTotals(s, SHOP, 'd', Date.UTC(2026, 2, 10), { visitors: 999, views: 999 });

  const { status, body } = await get(`/api/v1/analytics?site=${SHOP}`);
  assert.equal(status, 200);
  const read = body as AnalyticsRead;
  assert.equal(read.site, SHOP);
  assert.equal(read.service, 'shop');
  assert.deepEqual(read.sites, ['blog.example', SHOP]);
  assert.equal(read.from, at(9, 14));
  assert.equal(read.to, NOW);
  assert.deepEqual(read.totals, { visitors: 4, views: 8, visits: 5, bounce: 40, time: 8000 });
  assert.deepEqual(read.previous, { visitors: 110, views: 220, visits: 55, bounce: 54.5, time: 9091 });
  assert.deepEqual(read.omitted, []);
  assert.deepEqual(read.sharedAddress, { forwarded: null, proxy: null });

  const { series } = read;
  assert.equal(series.stepMs, HOUR);
  assert.equal(series.x.length, 25);
  assert.equal(series.x[0], at(9, 14));
  assert.equal(series.x[20], at(10, 10));
  const zeros = Array(25).fill(0);
  const nulls = Array(25).fill(null);
  assert.deepEqual(series.visitors, Object.assign([...zeros], { 20: 3, 24: 1 }));
  assert.deepEqual(series.views, Object.assign([...zeros], { 20: 7, 24: 1 }));
  assert.deepEqual(series.bounce, Object.assign([...nulls], { 20: 25, 24: 100 }));
  assert.deepEqual(series.time, Object.assign([...nulls], { 20: 10_000, 24: 0 }));
});

test('a week reads the daily rollups, one point per UTC day', async () => {
  const { server: s, get } = await server();
  await writeTotals(s, SHOP, 'd', Date.UTC(2026, 2, 3), { visitors: 10, views: 20, visits: 12, bounces: 6 });
  await writeTotals(s, SHOP, 'd', Date.UTC(2026, 2, 10), {
    visitors: 5,
    views: 9,
    visits: 6,
    bounces: 0,
    engagedMs: 60_000,
  });
  // Hour rows of the same data are not read again.
  await writeTotals(s, SHOP, 'h', Date.UTC(2026, 2, 10, 9), { visitors: 5, views: 9, visits: 6 });
  // The previous week ends the day before the first day read.
  await writeTotals(s, SHOP, 'd', Date.UTC(2026, 2, 2), { visitors: 7, views: 7, visits: 7, bounces: 7 });

  const read = (await get(`/api/v1/analytics?site=${SHOP}&range=7d`)).body as AnalyticsRead;
  assert.equal(read.series.stepMs, DAY);
  assert.deepEqual(
    read.series.x,
    Array.from({ length: 8 }, (_, i) => Date.UTC(2026, 2, 3 + i)),
  );
  assert.deepEqual(read.series.visitors, [10, 0, 0, 0, 0, 0, 0, 5]);
  assert.deepEqual(read.series.bounce, [50, null, null, null, null, null, null, 0]);
  assert.deepEqual(read.series.time, [0, null, null, null, null, null, null, 10_000]);
  assert.deepEqual(read.totals, { visitors: 15, views: 29, visits: 18, bounce: 33.3, time: 3333 });
  assert.deepEqual(read.previous, { visitors: 7, views: 7, visits: 7, bounce: 100, time: 0 });
  assert.deepEqual(read.omitted, []);
});

test('beyond raw retention a day is read from its daily rollups; single pages’ Web Vitals and errors are left out', async () => {
  const { server: s, get } = await server();
  const day = Date.UTC(2026, 0, 5);
  await writeTotals(s, SHOP, 'd', day, {
    visitors: 40,
    views: 90,
    visits: 50,
    bounces: 20,
    engagedMs: 100_000,
  });
  await writeTotals(s, SHOP, 'd', day - DAY, { visitors: 30, views: 30, visits: 30, bounces: 30 });
  await writeDims(s, SHOP, 'd', day, [['pages', '/pricing', 12, 30]]);

  const from = day + 10 * HOUR;
  const read = (await get(`/api/v1/analytics?site=${SHOP}&from=${from}&to=${from + 4 * HOUR}`))
    .body as AnalyticsRead;
  assert.equal(read.from, day);
  assert.equal(read.to, day + DAY);
  assert.equal(read.series.stepMs, DAY);
  assert.deepEqual(read.totals, { visitors: 40, views: 90, visits: 50, bounce: 40, time: 2000 });
  assert.deepEqual(read.previous, { visitors: 30, views: 30, visits: 30, bounce: 100, time: 0 });
  assert.deepEqual(read.dimensions.pages, {
    rows: [{ value: '/pricing', visitors: 12, views: 30 }],
    total: 1,
    exact: true,
  });
  assert.equal(read.vitals.pages, null);
  assert.equal(read.vitals.pagesFrom, null);
  assert.equal(read.errors, null);
  assert.deepEqual(read.omitted, ['vitals.pages', 'errors']);
});

test('the previous period of an hourly span is left out when its hours are no longer kept', async () => {
  const { server: s, get } = await server();
  const from = hourlyKeptFrom(NOW) + HOUR;
  await writeTotals(s, SHOP, 'h', from, { visitors: 2, views: 2, visits: 2, bounces: 1 });
  // The day row holding the previous period's hours: a whole day is not like for like.
  await writeTotals(s, SHOP, 'd', Math.floor(from / DAY) * DAY - DAY, { visitors: 9, views: 9 });

  const read = (await get(`/api/v1/analytics?site=${SHOP}&from=${from}&to=${from + 6 * HOUR}`))
    .body as AnalyticsRead;
  assert.equal(read.series.stepMs, HOUR);
  assert.deepEqual(read.totals, { visitors: 2, views: 2, visits: 2, bounce: 50, time: 0 });
  assert.deepEqual(read.previous, { visitors: 0, views: 0, visits: 0, bounce: null, time: null });
  // Its first day is only partly kept, so single pages' Web Vitals are left out too.
  assert.deepEqual(read.omitted, ['previous', 'vitals.pages']);
});

test('the site read: the first known by default, an unknown one 404', async () => {
  const { server: s, get } = await server();
  await writeTotals(s, 'blog.example', 'h', Date.UTC(2026, 2, 10, 12), { visitors: 3, views: 4 });

  const first = (await get('/api/v1/analytics')).body as AnalyticsRead;
  assert.equal(first.site, 'blog.example');
  assert.equal(first.totals.views, 4);
  assert.equal((await get('/api/v1/analytics?site=Blog.Example')).body.site, 'blog.example');

  const unknown = await get('/api/v1/analytics?site=nope.example');
  assert.equal(unknown.status, 404);
  assert.match(String(unknown.headers['content-type']), /^application\/problem\+json/);
  assert.equal(unknown.body.detail, 'no site nope.example');
  const unknownList = await get('/api/v1/analytics/pages?site=nope.example');
  assert.equal(unknownList.status, 404);
});

test('without any site the read answers empty, for the panel to offer adding one', async () => {
  const { get } = await server({ sites: false });
  const { status, body } = await get('/api/v1/analytics');
  assert.equal(status, 200);
  const read = body as AnalyticsRead;
  assert.equal(read.site, null);
  assert.deepEqual(read.sites, []);
  assert.deepEqual(read.totals, { visitors: 0, views: 0, visits: 0, bounce: null, time: null });
  assert.equal(read.series.x.length, 25);
  assert.ok(read.series.visitors.every((n) => n === 0));
  assert.deepEqual(read.dimensions.referrers, { rows: [], total: 0, exact: true });
  assert.deepEqual(read.vitals, {
    overall: { lcp: null, inp: null, cls: null, fcp: null, ttfb: null },
    pages: [],
    pagesFrom: Date.UTC(2026, 2, 9),
  });
  assert.deepEqual(read.errors, []);
  assert.deepEqual(read.sharedAddress, { forwarded: null, proxy: null });
  const list = await get('/api/v1/analytics/pages');
  assert.deepEqual(list.body, { list: 'pages', site: null, rows: [], total: 0, exact: true });
});

test('ranges are parsed as the other reads parse them: 422 naming the field', async () => {
  const { get } = await server();
  const cases: [string, string][] = [
    ['range=2d', 'range: must be one of 1h, 24h, 7d, 30d, 1y'],
    [`range=24h&from=${NOW - HOUR}&to=${NOW}`, 'range: give range or from and to, not both'],
    [`from=${NOW}&to=${NOW - HOUR}`, 'to: must be after from'],
    [`from=${NOW - 401 * DAY}&to=${NOW}`, 'from: the span may be at most 400 days'],
    ['site=a&site=b', 'site: must be given once'],
  ];
  for (const [query, detail] of cases) {
    const res = await get(`/api/v1/analytics?${query}`);
    assert.equal(res.status, 422, query);
    assert.equal(res.body.detail, detail, query);
  }
  const year = await get(`/api/v1/analytics?from=${NOW - 400 * DAY}&to=${NOW}`);
  assert.equal(year.status, 200);
  assert.equal(year.body.series.x.length, 401);
});

test('the reads take a read token and refuse a request without credentials', async () => {
  const s = await authTestServer({
    config: staticConfig({
      services: [{ name: 'shop', hosts: [], sites: [SHOP], dependsOn: [], tier: null }],
    }),
  });
  after(() => s.dispose());
  const token = await s.tokenOf('read');
  for (const url of ['/api/v1/analytics', '/api/v1/analytics/pages']) {
    const withToken = await s.app.inject({ url, headers: { authorization: `Bearer ${token}` } });
    assert.equal(withToken.statusCode, 200, url);
    assert.equal(JSON.parse(withToken.body).site, SHOP);
    const without = await s.app.inject({ url });
    assert.equal(without.statusCode, 401, url);
  }
});
