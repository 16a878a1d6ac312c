import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { AnalyticsListRead, AnalyticsRead, SiteCreated } from '../protocol/analytics.ts';
import { siteNames, startTestSite, visitorSwitches } from '../server/analytics/fixtures/site.ts';
import { trackerScript } from '../server/analytics/tracker.ts';
import type { Principal } from '../server/auth/access.ts';
import { startReceiver } from '../server/http/fixtures/receiver.ts';
import { createTestServer } from '../server/testing.ts';
import { launchChromium, listenOnLoopback } from './panel/harness.ts';

/**
 * The tracking script in pages as sites make them, against mon itself on loopback, in Debian's
 * Chromium: a script tag with `integrity` or `type="module"`, a fetch wrapper that adds a header, a
 * single-page app faster than mon's rate, an address longer than an event takes. Each test has a mon
 * of its own: they all come from one address, and mon limits the events of an address.
 */

const writer: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

/** A mon on loopback with `domain` as a site; its reads and ingest counters. */
async function monWith(domain: string) {
  const server = await createTestServer({ authenticate: async () => writer });
  const base = await listenOnLoopback(server.app);
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${base}${path}`);
    const text = await response.text();
    return (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text) as T;
  };
  const added = await fetch(`${base}/api/v1/sites`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ domain }),
  });
  assert.equal(added.status, 201);
  const { snippet } = (await added.json()) as SiteCreated;
  return {
    base,
    snippet,
    read: () => get<AnalyticsRead>(`/api/v1/analytics?site=${domain}`),
    list: (name: string) => get<AnalyticsListRead>(`/api/v1/analytics/${name}?site=${domain}`),
    counter: async (series: string) => {
      const text = await get<string>('/metrics');
      return Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\d+)`, 'm').exec(text)?.[1] ?? 0);
    },
    close: () => server.dispose(),
  };
}

/** Polls `get` every 50 ms until `done` (15 s at most). */
async function waitFor<T>(what: string, get: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = await get();
    if (done(value)) return value;
    if (Date.now() > deadline) assert.fail(`not within 15 s: ${what}; got ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The page's console errors and uncaught exceptions. */
function troubles(page: Page): string[] {
  const seen: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') seen.push(message.text());
  });
  page.on('pageerror', (error) => seen.push(String(error)));
  return seen;
}

describe('the script in pages as sites make them, with mon', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium([...visitorSwitches, siteNames]);
  });
  after(() => browser.close());

  test('a tag with crossorigin and integrity, and a module script, load the script and count', async (t) => {
    const mon = await monWith('sri.example');
    t.after(() => mon.close());
    const hash = createHash('sha384')
      .update(await trackerScript())
      .digest('base64');
    const tags = [
      `<script defer src="${mon.base}/b.js" data-domain="sri.example" crossorigin="anonymous" integrity="sha384-${hash}"></script>`,
      `<script type="module" src="${mon.base}/script.js" data-domain="sri.example"></script>`,
    ];
    for (const [i, tag] of tags.entries()) {
      const site = await startTestSite(tag, 'sri.example');
      t.after(() => site.close());
      const context = await browser.newContext();
      const page = await context.newPage();
      const seen = troubles(page);
      await page.goto(`${site.url}/tag-${i}`);
      await waitFor(
        'the view',
        () => mon.read(),
        (read) => read.totals.views === i + 1,
      );
      assert.deepEqual(seen, []);
      await context.close();
    }
  });

  test('a fetch wrapper adding a header: the preflight is answered, and the events arrive', async (t) => {
    const mon = await monWith('wrapped.example');
    t.after(() => mon.close());
    const wrapper = `<script>const f = window.fetch; window.fetch = (u, o = {}) => f(u, { ...o, headers: { ...o.headers, 'x-csrf-token': 'abc' } });</script>`;
    const site = await startTestSite(wrapper + mon.snippet, 'wrapped.example');
    t.after(() => site.close());
    const context = await browser.newContext();
    const page = await context.newPage();
    const seen = troubles(page);
    await page.goto(`${site.url}/a`);
    await page.evaluate(() => history.pushState({}, '', '/b'));
    await waitFor(
      'two views',
      () => mon.read(),
      (read) => read.totals.views === 2,
    );
    assert.deepEqual(seen, []);
    assert.equal(await mon.counter('mon_ingest_rejected_total{reason="rate_limited"}'), 0);
    await context.close();

    // The preflight as a browser sends it: allowed for any origin and header, kept two hours, and no
    // event of the address's rate spent on it.
    for (let i = 0; i < 40; i++) {
      const answer = await fetch(`${mon.base}/e`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://wrapped.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type,x-csrf-token',
        },
      });
      assert.equal(answer.status, 204);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*');
      assert.equal(answer.headers.get('access-control-allow-methods'), 'POST');
      assert.equal(answer.headers.get('access-control-allow-headers'), '*');
      assert.equal(answer.headers.get('access-control-max-age'), '7200');
    }
    assert.equal(await mon.counter('mon_ingest_rejected_total{reason="rate_limited"}'), 0);
    // A preflight has no body: one carrying more than an event may is refused before it is read.
    const heavy = await fetch(`${mon.base}/e`, {
      method: 'OPTIONS',
      headers: { 'content-type': 'text/plain' },
      body: 'x'.repeat(900_000),
    });
    assert.equal(heavy.status, 413);
    await heavy.body?.cancel();
  });

  test('a single-page app changing path 4 times a second: every view stored, none refused', async (t) => {
    const mon = await monWith('fast.example');
    t.after(() => mon.close());
    const site = await startTestSite(mon.snippet, 'fast.example');
    t.after(() => site.close());
    const context = await browser.newContext();
    const page = await context.newPage();
    const seen = troubles(page);
    await page.goto(`${site.url}/r0`);
    // 45 paths in 11 s: an engagement and a view each would be 91 events, over mon's 30 and 2 a second.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          let i = 0;
          const timer = setInterval(() => {
            history.pushState({}, '', `/r${++i}`);
            if (i === 45) {
              clearInterval(timer);
              resolve();
            }
          }, 250);
        }),
    );
    const read = await waitFor(
      '46 views',
      () => mon.read(),
      (r) => r.totals.views === 46,
    );
    assert.equal(read.totals.visits, 1);
    assert.equal(await mon.counter('mon_ingest_rejected_total{reason="rate_limited"}'), 0);
    assert.deepEqual(seen, []);
    await context.close();
  });

  test('an address over 2,048 characters: its path decoded and its campaign kept', async (t) => {
    const mon = await monWith('long.example');
    t.after(() => mon.close());
    const site = await startTestSite(mon.snippet, 'long.example');
    t.after(() => site.close());
    const context = await browser.newContext();
    const page = await context.newPage();
    const path = `/${'é'.repeat(400)}`;
    await page.goto(`${site.url}${path}?x=${'a'.repeat(3000)}&utm_source=tail`);
    await page.goto(`${site.url}/${'€'.repeat(700)}`);
    const pages = await waitFor(
      'two pages',
      () => mon.list('pages'),
      (list) => list.total === 2,
    );
    // Cut between characters, never inside one: the paths decode (mon keeps the first 500 characters).
    const [first, second] = pages.rows.map((row) => row.value).sort();
    assert.match(first!, /^\/é{300,}$/);
    assert.match(second!, /^\/€{200,}$/);
    const sources = await mon.list('utmSources');
    assert.deepEqual(
      sources.rows.map((row) => row.value),
      ['tail'],
    );
    await context.close();
  });

  test('an error of another origin’s script without crossorigin ("Script error.") is not sent', async (t) => {
    const mon = await monWith('foreign.example');
    t.after(() => mon.close());
    const cdn = await startReceiver();
    t.after(() => cdn.close());
    cdn.answer = () => ({
      status: 200,
      body: `window.libBoom = () => { throw new Error('inside the library'); };`,
      headers: { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' },
    });
    const cdnUrl = cdn.url.replace('127.0.0.1', 'cdn.example');
    const site = await startTestSite(
      `${mon.snippet}<script src="${cdnUrl}/lib.js"></script>`,
      'foreign.example',
    );
    t.after(() => site.close());
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${site.url}/`);
    await waitFor(
      'the view',
      () => mon.read(),
      (read) => read.totals.views === 1,
    );
    const boom = () =>
      page.evaluate(
        () =>
          new Promise<void>((resolve) => {
            setTimeout(() => (window as unknown as { libBoom: () => void }).libBoom());
            setTimeout(resolve, 50);
          }),
      );
    // Loaded without crossorigin, the library's error is opaque to the page: "Script error.".
    await boom();
    // The same library loaded with crossorigin: its error says what and where.
    await page.evaluate(
      (url) =>
        new Promise<void>((resolve) => {
          const s = document.createElement('script');
          s.src = `${url}/again.js`;
          s.crossOrigin = 'anonymous';
          s.onload = () => resolve();
          document.head.append(s);
        }),
      cdnUrl,
    );
    await boom();
    const read = await waitFor(
      'one error',
      () => mon.read(),
      (r) => (r.errors?.length ?? 0) > 0,
    );
    await page.waitForTimeout(300);
    assert.deepEqual(
      (await mon.read()).errors?.map((error) => `${error.message} ${error.script}`),
      [`inside the library ${cdnUrl}/again.js`],
      JSON.stringify(read.errors),
    );
    await context.close();
  });
});
