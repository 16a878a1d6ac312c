import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AnalyticsListRead, AnalyticsRead, SiteCreated } from '../protocol/analytics.ts';
import { errorLine, siteNames, startTestSite, visitorSwitches } from '../server/analytics/fixtures/site.ts';
import { trackerSnippet } from '../server/analytics/tracker.ts';
import type { Principal } from '../server/auth/access.ts';
import { createTestServer } from '../server/testing.ts';
import { launchChromium, listenOnLoopback } from './panel/harness.ts';

/**
 * Web analytics end to end: mon listening on loopback, a site added through the API, a page on another
 * origin carrying the snippet mon answered, in Debian's Chromium. A visitor's page view, single-page
 * navigation, error and Web Vitals are stored and read back; a headless browser and an extension's
 * error are refused and counted, and change no read.
 */

const writer: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
const domain = 'shop.example';

test('a visitor in Chromium shows in the analytics reads; a bot and an extension’s error do not', async (t) => {
  const server = await createTestServer({ authenticate: async () => writer });
  t.after(() => server.dispose());
  const mon = await listenOnLoopback(server.app);
  const api = async <T>(path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const response = await fetch(`${mon}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      ...(body === undefined
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T,
    };
  };

  const added = await api<SiteCreated>('/api/v1/sites', { domain });
  assert.equal(added.status, 201, JSON.stringify(added.body));
  assert.equal(added.body.snippet, trackerSnippet(mon, domain));

  const site = await startTestSite(added.body.snippet, domain);
  t.after(() => site.close());
  const browser = await launchChromium([...visitorSwitches, siteNames]);
  t.after(() => browser.close());

  const read = async () => {
    const answer = await api<AnalyticsRead>(`/api/v1/analytics?site=${domain}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body;
  };
  /** The ingest counters of `/metrics`. */
  const metrics = async () =>
    (await api<string>('/metrics')).body
      .split('\n')
      .filter((line) => line.startsWith('mon_ingest_'))
      .join('\n');
  const counter = (text: string, series: string) =>
    Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
  /** Reads with `get` every 50 ms until `done` (at most 15 s of real time: the browser's). */
  const waitFor = async <T>(what: string, get: () => Promise<T>, done: (value: T) => boolean): Promise<T> => {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const value = await get();
      if (done(value)) return value;
      if (Date.now() > deadline) assert.fail(`not within 15 s: ${what}; got ${JSON.stringify(value)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };

  // A visitor: a view with a referrer and a campaign, a layout shift, a slow click, a single-page
  // navigation, a thrown error, an extension's error, then the page is left.
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  await page.goto(`${site.url}/pricing?utm_source=newsletter`, { referer: 'http://news.example/item?id=1' });
  await page.evaluate(
    () =>
      new Promise((resolve) => {
        (window as unknown as { shift: () => void }).shift();
        requestAnimationFrame(() => requestAnimationFrame(resolve));
      }),
  );
  await page.click('#slow');
  await page.waitForFunction(() => (window as unknown as { interacted: boolean }).interacted);
  await page.evaluate(() => history.pushState({}, '', '/checkout'));
  await page.evaluate(() => setTimeout(() => (window as unknown as { explode: () => void }).explode()));
  await page.evaluate(() => {
    const error = new Error('injected by an extension');
    error.stack =
      'Error: injected by an extension\n    at run (chrome-extension://abcdefghijklmnop/content.js:1:10)';
    dispatchEvent(
      new ErrorEvent('error', {
        message: error.message,
        filename: 'chrome-extension://abcdefghijklmnop/content.js',
        lineno: 1,
        colno: 10,
        error,
      }),
    );
  });
  await page.goto('about:blank');

  // A view, its engagement and vitals at the navigation, a view, an error, the engagement at leaving.
  const afterVisitor = await waitFor(
    'the visitor’s five events stored and an extension’s error refused',
    metrics,
    (text) =>
      counter(text, 'mon_ingest_accepted_total{endpoint="tracker"}') === 5 &&
      counter(text, 'mon_ingest_rejected_total{reason="extension"}') === 1,
  );
  await context.close();
  const visited = await read();
  assert.deepEqual(
    {
      visitors: visited.totals.visitors,
      views: visited.totals.views,
      visits: visited.totals.visits,
      bounce: visited.totals.bounce,
    },
    { visitors: 1, views: 2, visits: 1, bounce: 0 },
  );
  assert.ok((visited.totals.time ?? 0) > 0, `time ${visited.totals.time}`);
  const pages = visited.dimensions.pages.rows
    .map((row) => `${row.value} ${row.visitors} ${row.views}`)
    .sort();
  assert.deepEqual(pages, ['/checkout 1 1', '/pricing 1 1']);
  assert.deepEqual(
    visited.dimensions.referrers.rows.map((row) => [row.value, row.visitors]),
    [['news.example', 1]],
  );
  assert.equal(visited.dimensions.utmSources.rows[0]?.value, 'newsletter');
  assert.equal(visited.dimensions.devices.rows[0]?.value, 'desktop');
  assert.equal(visited.errors?.length, 1, JSON.stringify(visited.errors));
  const [error] = visited.errors!;
  assert.equal(error?.type, 'TypeError');
  assert.match(error?.message ?? '', /boom/);
  assert.equal(error?.script, `${site.url}/app.js`);
  assert.equal(error?.line, errorLine);
  assert.equal(error?.count, 1);
  assert.equal(error?.isNew, true);
  for (const name of ['ttfb', 'fcp', 'lcp', 'cls', 'inp'] as const) {
    assert.equal(
      visited.vitals.overall[name]?.samples,
      1,
      `${name}: ${JSON.stringify(visited.vitals.overall)}`,
    );
  }
  assert.ok((visited.vitals.overall.inp?.p75 ?? 0) >= 100);

  const list = await api<AnalyticsListRead>(`/api/v1/analytics/pages?site=${domain}`);
  assert.equal(list.status, 200);
  assert.equal(list.body.list, 'pages');
  assert.equal(list.body.total, 2);
  assert.deepEqual(list.body.rows.map((row) => row.value).sort(), ['/checkout', '/pricing']);

  // A headless browser under automation, as it comes: refused as a bot, nothing stored.
  const robot = await launchChromium([siteNames]);
  t.after(() => robot.close());
  const robotPage = await robot.newPage();
  await robotPage.goto(`${site.url}/pricing`);
  await robotPage.evaluate(() => setTimeout(() => (window as unknown as { explode: () => void }).explode()));
  await waitFor(
    'the bot’s view and error refused',
    metrics,
    (text) => counter(text, 'mon_ingest_rejected_total{reason="bot"}') >= 2,
  );
  const after = await read();
  assert.deepEqual(after.totals, visited.totals);
  assert.deepEqual(after.dimensions.pages, visited.dimensions.pages);
  assert.deepEqual(
    after.errors?.map((e) => e.count),
    [1],
  );
  assert.equal(
    counter(await metrics(), 'mon_ingest_accepted_total{endpoint="tracker"}'),
    counter(afterVisitor, 'mon_ingest_accepted_total{endpoint="tracker"}'),
  );
});
