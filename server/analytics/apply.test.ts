import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { DIRECT_REFERRER } from '../../protocol/analytics.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import type { LiveKey } from '../../protocol/live.ts';
import { FakeClock } from '../clock.ts';
import { createTestServer, type TestServer } from '../testing.ts';
import { MAX_NEW_ERROR_GROUPS_PER_DAY } from './error-groups.ts';
import { engage, jsError, rows, store, view } from './storage-testkit.ts';
import type { TrackerItem } from './types.ts';
import { vitalBucket } from './vitals.ts';

/** 10:15 UTC on a Monday: its hour starts at 10:00, its day at midnight. */
const T = Date.UTC(2026, 0, 5, 10, 15);
const HOUR_10 = Date.UTC(2026, 0, 5, 10);
const DAY_5 = Date.UTC(2026, 0, 5);

async function server(t: TestContext): Promise<TestServer> {
  const s = await createTestServer({ clock: new FakeClock(T) });
  t.after(() => s.dispose());
  return s;
}

type Totals = { visitors: number; views: number; visits: number; bounces: number; engaged_ms: number };

function totals(s: TestServer, res: 'h' | 'd', at: number, site = 'shop.example'): Totals | undefined {
  return rows(
    s,
    'SELECT visitors, views, visits, bounces, engaged_ms FROM analytics_totals WHERE site = ? AND res = ? AND at = ?',
    site,
    res,
    at,
  )[0] as Totals | undefined;
}

/** A list's rows of one bucket as `value: visitors/views`, sorted. */
function dims(s: TestServer, list: string, res: 'h' | 'd' = 'd', at = DAY_5): string[] {
  return rows(
    s,
    `SELECT value, visitors, views FROM analytics_dims WHERE site = 'shop.example' AND res = ? AND at = ? AND list = ?
     ORDER BY value`,
    res,
    at,
    list,
  ).map((r) => `${r.value}: ${r.visitors}/${r.views}`);
}

test('one visitor viewing three pages in one visit: one visitor, three views, one visit that does not bounce', async (t) => {
  const s = await server(t);
  await store(s, [
    view({ ts: T, page: '/' }),
    view({ ts: T + MINUTE, page: '/pricing' }),
    view({ ts: T + 2 * MINUTE, page: '/' }),
  ]);
  const expected = { visitors: 1, views: 3, visits: 1, bounces: 0, engaged_ms: 0 };
  assert.deepEqual(totals(s, 'h', HOUR_10), expected);
  assert.deepEqual(totals(s, 'd', DAY_5), expected);
  assert.deepEqual(dims(s, 'pages'), ['/: 1/2', '/pricing: 1/1']);
  assert.deepEqual(rows(s, 'SELECT started_at, last_at, views, entry_page FROM analytics_sessions'), [
    { started_at: T, last_at: T + 2 * MINUTE, views: 3, entry_page: '/' },
  ]);
  assert.equal(rows(s, 'SELECT * FROM analytics_views').length, 3);
});

test('views of one page by one visitor in the same millisecond all count (people sharing an address and a browser)', async (t) => {
  const s = await server(t);
  await store(s, [view({ ts: T, page: '/' }), view({ ts: T, page: '/' })]);
  await store(s, [view({ ts: T, page: '/' })]);
  assert.deepEqual(totals(s, 'd', DAY_5), { visitors: 1, views: 3, visits: 1, bounces: 0, engaged_ms: 0 });
  assert.deepEqual(dims(s, 'pages'), ['/: 1/3']);
  assert.deepEqual(rows(s, 'SELECT views FROM analytics_sessions'), [{ views: 3 }]);
  // Each took the next free millisecond.
  assert.deepEqual(rows(s, 'SELECT ts FROM analytics_views ORDER BY ts'), [
    { ts: T },
    { ts: T + 1 },
    { ts: T + 2 },
  ]);
});

test('a one-page visit bounces until it has 10 seconds of engagement', async (t) => {
  const s = await server(t);
  await store(s, [
    view({ ts: T, visitor: 'short' }),
    engage({ ts: T + 5_000, visitor: 'short', engagedMs: 5_000 }),
    view({ ts: T, visitor: 'long' }),
    engage({ ts: T + 12_000, visitor: 'long', engagedMs: 12_000 }),
  ]);
  assert.deepEqual(totals(s, 'd', DAY_5), {
    visitors: 2,
    views: 2,
    visits: 2,
    bounces: 1,
    engaged_ms: 17_000,
  });
  // Engagement adds up across reports: 5 s more make 10 s, and the first visit stops bouncing.
  await store(s, [engage({ ts: T + 60_000, visitor: 'short', engagedMs: 5_000 })]);
  assert.deepEqual(totals(s, 'h', HOUR_10), {
    visitors: 2,
    views: 2,
    visits: 2,
    bounces: 0,
    engaged_ms: 22_000,
  });
  // More engagement of a visit that stopped bouncing takes nothing more back.
  await store(s, [engage({ ts: T + 90_000, visitor: 'short', engagedMs: 20_000 })]);
  assert.deepEqual(totals(s, 'h', HOUR_10), {
    visitors: 2,
    views: 2,
    visits: 2,
    bounces: 0,
    engaged_ms: 42_000,
  });
});

test('a visit ends after 30 idle minutes: the next view starts another, of the same visitor', async (t) => {
  const s = await server(t);
  await store(s, [view({ ts: T }), view({ ts: T + 30 * MINUTE, page: '/a' })]);
  await store(s, [view({ ts: T + 61 * MINUTE, page: '/b' })]);
  assert.deepEqual(totals(s, 'd', DAY_5), { visitors: 1, views: 3, visits: 2, bounces: 1, engaged_ms: 0 });
  assert.deepEqual(rows(s, 'SELECT started_at, views FROM analytics_sessions ORDER BY started_at'), [
    { started_at: T, views: 2 },
    { started_at: T + 61 * MINUTE, views: 1 },
  ]);
});

test('engagement and errors after 30 idle minutes start no visit; errors still count', async (t) => {
  const s = await server(t);
  await store(s, [view({ ts: T })]);
  await store(s, [
    // A minute of engagement that began 31 minutes after the view: the visit had ended.
    engage({ ts: T + 32 * MINUTE, engagedMs: 60_000 }),
    jsError({ ts: T + 32 * MINUTE, message: 'boom' }),
    // A visitor never seen: neither a visit nor a visitor.
    engage({ ts: T, visitor: 'ghost', engagedMs: 5_000 }),
  ]);
  assert.deepEqual(totals(s, 'd', DAY_5), { visitors: 1, views: 1, visits: 1, bounces: 1, engaged_ms: 0 });
  assert.deepEqual(rows(s, 'SELECT last_at, engaged_ms FROM analytics_sessions'), [
    { last_at: T, engaged_ms: 0 },
  ]);
  assert.deepEqual(rows(s, 'SELECT count FROM js_error_groups'), [{ count: 1 }]);
});

test('a long read keeps its visit: engagement sent after 31 minutes on the page counts and ends the bounce', async (t) => {
  const s = await server(t);
  await store(s, [view({ ts: T })]);
  await store(s, [engage({ ts: T + 31 * MINUTE, engagedMs: 31 * MINUTE })]);
  assert.deepEqual(totals(s, 'd', DAY_5), {
    visitors: 1,
    views: 1,
    visits: 1,
    bounces: 0,
    engaged_ms: 31 * MINUTE,
  });
  assert.deepEqual(rows(s, 'SELECT last_at, engaged_ms FROM analytics_sessions'), [
    { last_at: T + 31 * MINUTE, engaged_ms: 31 * MINUTE },
  ]);
});

test('a single-page app navigation after 40 minutes of reading continues the visit', async (t) => {
  const s = await server(t);
  await store(s, [view({ ts: T, page: '/guide' })]);
  // The tracker sends the engaged time of the page left, then the view of the next path.
  await store(s, [
    engage({ ts: T + 40 * MINUTE, engagedMs: 40 * MINUTE }),
    view({ ts: T + 40 * MINUTE + 5, page: '/pricing' }),
  ]);
  assert.deepEqual(totals(s, 'd', DAY_5), {
    visitors: 1,
    views: 2,
    visits: 1,
    bounces: 0,
    engaged_ms: 40 * MINUTE,
  });
  assert.deepEqual(rows(s, 'SELECT started_at, last_at, views FROM analytics_sessions'), [
    { started_at: T, last_at: T + 40 * MINUTE + 5, views: 2 },
  ]);
});

test('an error or engagement within a visit keeps it going', async (t) => {
  const s = await server(t);
  await store(s, [
    view({ ts: T }),
    jsError({ ts: T + 25 * MINUTE, message: 'boom' }),
    engage({ ts: T + 50 * MINUTE, engagedMs: 1_000 }),
    view({ ts: T + 75 * MINUTE }),
  ]);
  assert.deepEqual(totals(s, 'd', DAY_5), {
    visitors: 1,
    views: 2,
    visits: 1,
    bounces: 0,
    engaged_ms: 1_000,
  });
});

test('lists: pages count a visitor once and every view, sources once per visitor and value a day', async (t) => {
  const s = await server(t);
  const hn = 'news.ycombinator.com';
  await store(s, [
    view({ ts: T, visitor: 'a', page: '/', referrer: hn }),
    view({ ts: T + MINUTE, visitor: 'a', page: '/docs' }),
    // Visit 2 of visitor a, from the same referrer: no second visitor there.
    view({ ts: T + 40 * MINUTE, visitor: 'a', page: '/', referrer: hn }),
    // Visit 3, typed in.
    view({ ts: T + 80 * MINUTE, visitor: 'a', page: '/docs' }),
    view({
      ts: T,
      visitor: 'b',
      page: '/',
      country: null,
      device: 'mobile',
      browser: 'Safari',
      os: 'iOS',
      utm: { source: 'newsletter', campaign: 'spring' },
    }),
    view({
      ts: T + MINUTE,
      visitor: 'b',
      page: '/docs',
      country: null,
      device: 'mobile',
      browser: 'Safari',
      os: 'iOS',
    }),
  ]);
  assert.deepEqual(dims(s, 'pages'), ['/: 2/3', '/docs: 2/3']);
  assert.deepEqual(dims(s, 'referrers'), [`${DIRECT_REFERRER}: 2/3`, `${hn}: 1/3`]);
  // Campaign lists only for visits that carry the parameter (b's visit: both of its views).
  assert.deepEqual(dims(s, 'utmSources'), ['newsletter: 1/2']);
  assert.deepEqual(dims(s, 'utmCampaigns'), ['spring: 1/2']);
  assert.deepEqual(dims(s, 'utmMediums'), []);
  // Visitor lists: a visitor once a day, every view; an unknown country has no row.
  assert.deepEqual(dims(s, 'countries'), ['DE: 1/4']);
  assert.deepEqual(dims(s, 'devices'), ['desktop: 1/4', 'mobile: 1/2']);
  assert.deepEqual(dims(s, 'browsers'), ['Chrome: 1/4', 'Safari: 1/2']);
  assert.deepEqual(dims(s, 'operatingSystems'), ['Windows: 1/4', 'iOS: 1/2']);
  assert.deepEqual(totals(s, 'd', DAY_5), { visitors: 2, views: 6, visits: 4, bounces: 2, engaged_ms: 0 });
});

test('each event writes its hour and its UTC day; a visit that stops bouncing later does so in the hour it began', async (t) => {
  const s = await server(t);
  const start = Date.UTC(2026, 0, 5, 23, 50);
  await store(s, [
    view({ ts: start, page: '/late' }),
    view({ ts: start + 15 * MINUTE, page: '/after-midnight' }),
    view({ ts: start + 20 * MINUTE, visitor: 'v2', page: '/after-midnight' }),
  ]);
  const hour23 = Date.UTC(2026, 0, 5, 23);
  const day6 = Date.UTC(2026, 0, 6);
  assert.deepEqual(totals(s, 'h', hour23), { visitors: 1, views: 1, visits: 1, bounces: 0, engaged_ms: 0 });
  assert.deepEqual(totals(s, 'h', day6), { visitors: 1, views: 2, visits: 1, bounces: 1, engaged_ms: 0 });
  assert.deepEqual(totals(s, 'd', DAY_5), { visitors: 1, views: 1, visits: 1, bounces: 0, engaged_ms: 0 });
  assert.deepEqual(totals(s, 'd', day6), { visitors: 1, views: 2, visits: 1, bounces: 1, engaged_ms: 0 });
  assert.deepEqual(dims(s, 'pages', 'h', day6), ['/after-midnight: 2/2']);
  assert.deepEqual(dims(s, 'pages', 'd', day6), ['/after-midnight: 2/2']);
  assert.deepEqual(dims(s, 'pages', 'h', hour23), ['/late: 1/1']);
});

test('sites are counted apart', async (t) => {
  const s = await server(t);
  await store(s, [
    view({ ts: T }),
    view({ ts: T, site: 'blog.example' }),
    view({ ts: T + 1, site: 'blog.example', visitor: 'v2' }),
  ]);
  assert.equal(totals(s, 'd', DAY_5)?.visitors, 1);
  assert.equal(totals(s, 'd', DAY_5, 'blog.example')?.visitors, 2);
});

function vitals(s: TestServer, page: string, metric: string, res: 'h' | 'd', at: number): string[] {
  return rows(
    s,
    `SELECT bucket, n FROM analytics_vitals WHERE site = 'shop.example' AND res = ? AND at = ? AND page = ? AND metric = ?
       AND n <> 0 ORDER BY bucket`,
    res,
    at,
    page,
    metric,
  ).map((r) => `${r.bucket}:${r.n}`);
}

test('Web Vitals count in the histograms of every page and of the page; a later report of a view replaces the earlier', async (t) => {
  const s = await server(t);
  const lcp1 = vitalBucket('lcp', 2_000);
  const lcp2 = vitalBucket('lcp', 3_200);
  const cls = vitalBucket('cls', 0.05);
  await store(s, [
    view({ ts: T, page: '/a' }),
    engage({ ts: T + 5_000, page: '/a', engagedMs: 5_000, vitals: { lcp: 2_000, cls: 0.05 } }),
  ]);
  // Every page by the hour and day, the page by the day.
  for (const [page, res, at] of [
    ['', 'h', HOUR_10],
    ['', 'd', DAY_5],
    ['/a', 'd', DAY_5],
  ] as const) {
    assert.deepEqual(vitals(s, page, 'lcp', res, at), [`${lcp1}:1`], `${page} ${res}`);
    assert.deepEqual(vitals(s, page, 'cls', res, at), [`${cls}:1`], `${page} ${res}`);
  }
  assert.deepEqual(vitals(s, '/a', 'lcp', 'h', HOUR_10), []);
  // The page is hidden again an hour later: the view's report is now LCP 3.2 s and INP 150 ms, in the view's hour.
  await store(s, [engage({ ts: T + HOUR, page: '/a', vitals: { lcp: 3_200, inp: 150 } })]);
  assert.deepEqual(vitals(s, '', 'lcp', 'h', HOUR_10), [`${lcp2}:1`]);
  assert.deepEqual(vitals(s, '/a', 'inp', 'd', DAY_5), [`${vitalBucket('inp', 150)}:1`]);
  assert.deepEqual(vitals(s, '', 'cls', 'h', HOUR_10), []);
  // Another view of the page reports its own.
  await store(s, [
    view({ ts: T + 2 * HOUR, page: '/a' }),
    engage({ ts: T + 2 * HOUR, page: '/a', vitals: { lcp: 2_000 } }),
  ]);
  assert.deepEqual(vitals(s, '/a', 'lcp', 'd', DAY_5), [`${lcp1}:1`, `${lcp2}:1`].sort());
  // A report without its view (the view came under yesterday's id) counts at its own time.
  await store(s, [engage({ ts: T + DAY, visitor: 'other', page: '/b', vitals: { lcp: 900, ttfb: 300 } })]);
  assert.deepEqual(vitals(s, '/b', 'lcp', 'd', DAY_5 + DAY), [`${vitalBucket('lcp', 900)}:1`]);
  assert.deepEqual(vitals(s, '', 'ttfb', 'h', HOUR_10 + DAY), [`${vitalBucket('ttfb', 300)}:1`]);
  assert.deepEqual(vitals(s, '', 'ttfb', 'd', DAY_5 + DAY), [`${vitalBucket('ttfb', 300)}:1`]);
  // All five are kept per page too.
  assert.deepEqual(vitals(s, '/b', 'ttfb', 'd', DAY_5 + DAY), [`${vitalBucket('ttfb', 300)}:1`]);
});

const stackAt = (fn: string) => `Error: x\n    at ${fn} (https://shop.example/assets/app.js?v=3:1:100)`;

test('errors group by fingerprint with counts per hour and day, keeping the first occurrence', async (t) => {
  const s = await server(t);
  await store(s, [
    jsError({
      ts: T,
      message: 'Order 12 not found',
      stack: stackAt('loadOrder'),
      script: 'https://shop.example/assets/app.js',
    }),
    jsError({ ts: T + MINUTE, message: 'Order 977 not found', stack: stackAt('loadOrder') }),
    jsError({ ts: T + 2 * MINUTE, message: 'Order 12 not found', stack: stackAt('showOrder') }),
  ]);
  await store(s, [jsError({ ts: T + HOUR, message: 'Order 5 not found', stack: stackAt('loadOrder') })]);
  const groups = rows(
    s,
    'SELECT id, type, message, script, line, col, count, first_seen, last_seen FROM js_error_groups ORDER BY count DESC',
  );
  assert.equal(groups.length, 2);
  const { id, ...first } = groups[0]!;
  assert.deepEqual(first, {
    type: 'TypeError',
    message: 'Order 12 not found',
    script: 'https://shop.example/assets/app.js',
    line: 1,
    col: 2,
    count: 3,
    first_seen: T,
    last_seen: T + HOUR,
  });
  assert.deepEqual(
    rows(s, 'SELECT res, at, n FROM js_error_counts WHERE group_id = ? ORDER BY res, at', id as number),
    [
      { res: 'd', at: DAY_5, n: 3 },
      { res: 'h', at: HOUR_10, n: 2 },
      { res: 'h', at: HOUR_10 + HOUR, n: 1 },
    ],
  );
  assert.equal(groups[1]!.count, 1);
});

test('a site gets at most MAX_NEW_ERROR_GROUPS_PER_DAY new error groups a day; known groups still count', async (t) => {
  const s = await server(t);
  // Messages the fingerprint keeps apart (letters only: numbers are left out of it).
  const word = (i: number) => i.toString(26).replace(/[0-9]/g, (d) => 'qrstuvwxyz'[Number(d)]!);
  const made = (from: number, n: number, ts: number) =>
    Array.from({ length: n }, (_, i) => jsError({ ts, message: `no ${word(from + i)} here` }));
  await store(s, made(0, MAX_NEW_ERROR_GROUPS_PER_DAY - 1, T));
  // One more fits; in the next batch, a new one is dropped and a known one counts.
  await store(s, made(MAX_NEW_ERROR_GROUPS_PER_DAY - 1, 2, T + MINUTE));
  await store(s, [...made(5_000, 1, T + 2 * MINUTE), ...made(0, 1, T + 2 * MINUTE)]);
  const groupCount = () => Number(rows(s, 'SELECT count(*) AS n FROM js_error_groups')[0]!.n);
  assert.equal(groupCount(), MAX_NEW_ERROR_GROUPS_PER_DAY);
  assert.deepEqual(
    rows(s, 'SELECT count, last_seen FROM js_error_groups WHERE message = ?', `no ${word(0)} here`),
    [{ count: 2, last_seen: T + 2 * MINUTE }],
  );
  // The next UTC day has room again.
  await store(s, made(5_000, 1, DAY_5 + DAY));
  assert.equal(groupCount(), MAX_NEW_ERROR_GROUPS_PER_DAY + 1);
});

test('a batch stores the same rows as its events one job each', async (t) => {
  // A day of a few visitors, mixed kinds, with visits that end and resume, across hours.
  const items: TrackerItem[] = [];
  let ts = Date.UTC(2026, 0, 5, 8);
  for (let i = 0; i < 300; i++) {
    ts += ((i * 7919) % 13) * MINUTE;
    const visitor = `v${(i * 31) % 7}`;
    const page = `/p${i % 5}`;
    const kind = i % 4;
    if (kind === 0 || kind === 1) {
      items.push(
        view({
          ts,
          visitor,
          page,
          referrer: i % 3 ? null : 'a.example',
          utm: { source: i % 2 ? 'x' : null },
        }),
      );
    } else if (kind === 2) {
      items.push(engage({ ts, visitor, page, engagedMs: (i % 4) * 3_000, vitals: { lcp: 1_000 + i * 10 } }));
    } else items.push(jsError({ ts, visitor, message: `failed ${i}`, stack: stackAt(`f${i % 2}`) }));
  }
  const batched = await server(t);
  await store(batched, items);
  const single = await server(t);
  for (const item of items) await store(single, [item]);
  for (const table of [
    'analytics_totals',
    'analytics_dims',
    'analytics_vitals',
    'analytics_sessions',
    'analytics_views',
    'js_error_groups',
  ]) {
    const all = (x: TestServer) =>
      rows(
        x,
        `SELECT * FROM ${table} WHERE ${table === 'analytics_vitals' ? 'n <> 0' : '1'} ORDER BY 1, 2, 3, 4, 5`,
      );
    assert.deepEqual(all(batched), all(single), table);
    assert.ok(all(batched).length > 0, table);
  }
  assert.ok(ts - Date.UTC(2026, 0, 5, 8) > 12 * HOUR && ts < Date.UTC(2026, 0, 5, 8) + 2 * DAY);
});

test('a stored batch tells the live stream', async (t) => {
  const s = await server(t);
  const published: LiveKey[] = [];
  s.deps.bus.subscribe((keys) => published.push(...keys));
  await store(s, [view({ ts: T })]);
  assert.deepEqual(published, ['analytics']);
});
