import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { type TrackerEvent, trackerEventSchema } from '../../protocol/analytics.ts';
import { launchChromium } from '../../test/panel/harness.ts';
import { type Answer, type Receiver, startReceiver } from '../http/fixtures/receiver.ts';
import { within } from '../testing.ts';
import {
  errorLine,
  recordTrackerPosts,
  rejectionLine,
  startTestSite,
  visitorSwitches,
} from './fixtures/site.ts';
import { trackerScript, trackerSnippet } from './tracker.ts';

describe('the script in Chromium', () => {
  /** Serves the script as mon does (`trackerScript()`) and records the events posted to it. */
  let collector: Receiver;
  /** A browser as a visitor has it: `navigator.webdriver` false. */
  let browser: Browser;
  const sites: Receiver[] = [];
  /** When engaged time of order.example was answered. */
  const answeredAt: number[] = [];

  before(async () => {
    const script = await trackerScript();
    collector = await startReceiver();
    collector.answer = (request): Answer | Promise<Answer> => {
      if (request.method === 'GET' && (request.path === '/b.js' || request.path === '/script.js'))
        return { status: 200, body: script, headers: { 'content-type': 'text/javascript; charset=utf-8' } };
      if (request.method === 'POST' && request.path === '/e') {
        const answer = { status: 204, headers: { 'access-control-allow-origin': '*' } };
        const { d, k } = (request.json ?? {}) as { d?: string; k?: string };
        // order.example: engaged time is answered after a while, as a slow server would.
        if (d === 'order.example' && k === 'e') {
          return new Promise<Answer>((resolve) =>
            setTimeout(() => {
              answeredAt.push(Date.now());
              resolve(answer);
            }, 500),
          );
        }
        return answer;
      }
      return { status: 404, body: 'not here' };
    };
    browser = await launchChromium(visitorSwitches);
  });
  after(async () => {
    await browser?.close();
    await Promise.all([collector?.close(), ...sites.map((site) => site.close())]);
  });

  /** A site on its own origin whose pages carry `snippet` (by default mon's, for `domain`). */
  async function site(domain: string, snippet = trackerSnippet(collector.url, domain)): Promise<Receiver> {
    const started = await startTestSite(snippet);
    sites.push(started);
    return started;
  }

  async function visitor(options: { initScript?: () => void } = {}): Promise<{
    context: BrowserContext;
    page: Page;
  }> {
    const context = await browser.newContext();
    await recordTrackerPosts(context);
    if (options.initScript) await context.addInitScript(options.initScript);
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    return { context, page };
  }

  /** The events the collector received for `domain`, each held to the contract's schema. */
  function eventsOf(domain: string): TrackerEvent[] {
    return collector
      .to('/e')
      .map((request) => {
        const parsed = trackerEventSchema.safeParse(request.json);
        assert.ok(parsed.success, `not an event of the contract: ${request.body}`);
        return parsed.data;
      })
      .filter((event) => event.d === domain);
  }

  async function waitForEvents(
    domain: string,
    what: string,
    enough: (events: TrackerEvent[]) => boolean,
  ): Promise<TrackerEvent[]> {
    await within(15_000, `${what} for ${domain}, got ${JSON.stringify(eventsOf(domain))}`, () =>
      enough(eventsOf(domain)),
    );
    return eventsOf(domain);
  }

  /** What the page has sent so far (its `fetch` calls to `/e`), exactly and at once. */
  const sentBy = (page: Page) =>
    page.evaluate(() =>
      (window as unknown as { trackerPosts: string[] }).trackerPosts.map((body) => JSON.parse(body)),
    ) as Promise<TrackerEvent[]>;

  const views = (events: TrackerEvent[]) => events.filter((event) => event.k === 'v');

  /** What the page has sent once `enough` holds: a single-page app's view waits for an answer first. */
  async function sentWhen(page: Page, what: string, enough: (sent: TrackerEvent[]) => boolean) {
    const by = Date.now() + 15_000;
    for (;;) {
      const sent = await sentBy(page);
      if (enough(sent)) return sent;
      if (Date.now() > by) assert.fail(`not within 15 s: ${what}, sent ${JSON.stringify(sent)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  test('a page view at load: the domain, the URL and the referrer, as text/plain with no preflight, nothing stored', async () => {
    const shop = await site('load.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/pricing?utm_source=news`, { referer: 'http://news.example/item?id=1' });
    const [view] = await waitForEvents('load.example', 'a view', (events) => views(events).length === 1);
    assert.deepEqual(
      { ...view, r: undefined },
      { k: 'v', d: 'load.example', u: `${shop.url}/pricing?utm_source=news`, r: undefined },
    );
    assert.ok(view?.k === 'v' && view.r?.startsWith('http://news.example/'), JSON.stringify(view));

    const posts = collector.received.filter((r) => r.path === '/e' || r.method === 'OPTIONS');
    assert.ok(
      posts.every((r) => r.method === 'POST'),
      'no preflight',
    );
    assert.ok(posts.every((r) => r.headers['content-type'] === 'text/plain;charset=UTF-8'));
    assert.ok(posts.every((r) => r.headers.cookie === undefined));
    const left = await page.evaluate(() => ({
      cookie: document.cookie,
      local: localStorage.length,
      session: sessionStorage.length,
      globals: Object.keys(window),
    }));
    // The same page without the script has the same globals: the script leaves none behind.
    const bare = await site('bare.example', '');
    await page.goto(bare.url);
    const bareGlobals = await page.evaluate(() => Object.keys(window));
    assert.deepEqual(left, { cookie: '', local: 0, session: 0, globals: bareGlobals });
    await context.close();
  });

  test('without data-domain the domain is the page’s host name; /script.js is the same script', async () => {
    const shop = await site('127.0.0.1', `<script defer src="${collector.url}/script.js"></script>`);
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    const [view] = await waitForEvents('127.0.0.1', 'a view', (events) => views(events).length === 1);
    assert.equal(view?.u, `${shop.url}/`);
    await context.close();
  });

  test('a single-page app: a view for each new path (pushState, replaceState, back), none for the same path', async () => {
    const shop = await site('spa.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/a`);
    await waitForEvents('spa.example', 'the first view', (events) => views(events).length === 1);
    await page.evaluate(() => history.pushState({}, '', '/b'));
    await page.evaluate(() => history.pushState({}, '', '/b?tab=2#more'));
    await sentWhen(page, 'the view of /b', (sent) => views(sent).length >= 2);
    assert.equal(views(await sentBy(page)).length, 2, 'the same path is no new view');
    await page.evaluate(() => history.replaceState({}, '', '/c'));
    await page.evaluate(() => {
      const back = new Promise((resolve) => addEventListener('popstate', resolve, { once: true }));
      history.back();
      return back;
    });
    const sent = await sentWhen(page, 'four views', (events) => views(events).length >= 4);
    assert.deepEqual(
      views(sent).map((view) => new URL(view.u).pathname),
      ['/a', '/b', '/c', '/b'],
    );
    // Later views come from the site itself: only the first carries a referrer (here none).
    assert.ok(views(sent).every((view) => view.k === 'v' && view.r === undefined));
    // Leaving a path for another sends its engaged time; the vitals go once, with the first.
    const engaged = sent.filter((event) => event.k === 'e');
    assert.equal(engaged[0]?.u, `${shop.url}/a`);
    assert.ok(engaged[0]?.k === 'e' && engaged[0].t > 0 && engaged[0].w?.ttfb !== undefined);
    assert.ok(engaged.slice(1).every((event) => event.k === 'e' && event.w === undefined));
    // What the page sent is what arrived.
    await waitForEvents('spa.example', 'every event', (events) => events.length === sent.length);
    assert.deepEqual(
      views(eventsOf('spa.example'))
        .map((view) => new URL(view.u).pathname)
        .sort(),
      ['/a', '/b', '/b', '/c'],
    );
    await context.close();
  });

  test("a single-page app's view leaves once the engaged time of the path before it is answered, so mon stores them in order", async () => {
    const shop = await site('order.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/a`);
    await waitForEvents('order.example', 'the first view', (events) => views(events).length === 1);
    await page.evaluate(() => history.pushState({}, '', '/b'));
    await waitForEvents('order.example', 'the view of /b', (events) => views(events).length === 2);
    const arrived = collector
      .to('/e')
      .filter((r) => (r.json as TrackerEvent).d === 'order.example')
      .map((r) => ({ k: (r.json as TrackerEvent).k, at: r.at }));
    assert.deepEqual(
      arrived.map((r) => r.k),
      ['v', 'e', 'v'],
    );
    const [engagementAnswered] = answeredAt;
    assert.ok(engagementAnswered !== undefined && arrived[2]!.at >= engagementAnswered, 'after the answer');
    await context.close();
  });

  test('a page restored from the back-forward cache is viewed again, without the referrer', async () => {
    const shop = await site('bfcache.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/a`, { referer: 'http://news.example/' });
    // Playwright's Chromium keeps no page in the cache: the browser's events as a restore fires them.
    await page.evaluate(() => {
      dispatchEvent(new PageTransitionEvent('pagehide', { persisted: true }));
      dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }));
    });
    const sent = views(await sentBy(page));
    assert.deepEqual(
      sent.map((view) => `${new URL(view.u).pathname} from ${view.k === 'v' ? view.r : ''}`),
      ['/a from http://news.example/', '/a from undefined'],
    );
    await context.close();
  });

  test('leaving the page sends the engaged time and the Web Vitals: TTFB, FCP, LCP, CLS, INP', async () => {
    const shop = await site('vitals.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('vitals.example', 'a view', (events) => views(events).length === 1);
    // A shift counts only once the content was on screen: wait for the first paint (a loaded machine
    // can run the page's script before it).
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
    await page.evaluate(
      () =>
        new Promise((resolve) => {
          (window as unknown as { shift: () => void }).shift();
          requestAnimationFrame(() => requestAnimationFrame(resolve));
        }),
    );
    await page.click('#slow');
    await page.waitForFunction(() => (window as unknown as { interacted: boolean }).interacted);
    // Leaving the page fires pagehide, then visibilitychange (hidden): one engagement for both. What
    // it sends while it unloads arrives before the view of the page that follows.
    await page.goto(`${shop.url}/next`);
    const events = await waitForEvents('vitals.example', 'the next view', (all) => views(all).length === 2);
    const engagements = events.filter((event) => event.k === 'e');
    assert.equal(engagements.length, 1, JSON.stringify(engagements));
    const [hidden] = engagements;
    assert.ok(hidden?.k === 'e');
    assert.equal(hidden.u, `${shop.url}/`);
    assert.ok(hidden.t > 0, `engaged ${hidden.t} ms`);
    const w = hidden.w ?? {};
    assert.ok(w.ttfb !== undefined && w.ttfb > 0, `ttfb ${w.ttfb}`);
    assert.ok(w.fcp !== undefined && w.fcp > 0, `fcp ${w.fcp}`);
    assert.ok(w.lcp !== undefined && w.lcp >= w.fcp, `lcp ${w.lcp}`);
    assert.ok(w.cls !== undefined && w.cls > 0.05, `cls ${w.cls}`);
    assert.ok(w.inp !== undefined && w.inp >= 100, `inp ${w.inp}`);
    await context.close();
  });

  test('errors: thrown and rejected, with type, message, script, line, column and stack; at most 10 a page', async () => {
    const shop = await site('errors.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('errors.example', 'a view', (events) => views(events).length === 1);
    const later = (fn: string) =>
      page.evaluate(
        (name) =>
          new Promise<void>((resolve) => {
            setTimeout(() => (window as unknown as Record<string, () => void>)[name]!());
            setTimeout(resolve, 20);
          }),
        fn,
      );
    await later('explode');
    await later('reject');
    await page.evaluate(() => {
      void Promise.reject('a plain refusal');
    });
    const errors = (
      await waitForEvents(
        'errors.example',
        'three errors',
        (events) => events.filter((e) => e.k === 'x').length === 3,
      )
    ).filter((event) => event.k === 'x');
    const byType = Object.fromEntries(errors.map((error) => [error.n, error]));
    const thrown = byType.TypeError;
    assert.ok(thrown, JSON.stringify(errors));
    assert.deepEqual(
      { ...thrown, c: undefined, st: undefined },
      {
        k: 'x',
        d: 'errors.example',
        u: `${shop.url}/`,
        n: 'TypeError',
        m: 'boom at 0x1f in order 42',
        s: `${shop.url}/app.js`,
        l: errorLine,
        c: undefined,
        st: undefined,
      },
    );
    assert.ok(thrown.c !== undefined && thrown.c > 0);
    assert.match(thrown.st ?? '', new RegExp(`explode .*/app\\.js:${errorLine}:`));
    const rejected = byType.RangeError;
    assert.equal(rejected?.m, 'no way');
    assert.equal(rejected?.s, `${shop.url}/app.js`);
    assert.equal(rejected?.l, rejectionLine);
    assert.match(rejected?.st ?? '', /reject/);
    assert.deepEqual(byType.UnhandledRejection, {
      k: 'x',
      d: 'errors.example',
      u: `${shop.url}/`,
      n: 'UnhandledRejection',
      m: 'a plain refusal',
    });

    // An error in a loop: ten a page, then nothing.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          for (let i = 0; i < 20; i++)
            setTimeout(() => (window as unknown as { explode: () => void }).explode());
          setTimeout(resolve, 50);
        }),
    );
    assert.equal((await sentBy(page)).filter((event) => event.k === 'x').length, 10);
    await context.close();
  });

  test('an error whose event would be over 8 KiB in bytes is sent with its stack cut, its message whole', async () => {
    const shop = await site('long-errors.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('long-errors.example', 'a view', (events) => views(events).length === 1);
    // 2,000 characters of three bytes each, repeated at the top of the stack, deep in long-named frames.
    await page.evaluate(() => {
      const message = '错'.repeat(2500);
      const name = 'a'.repeat(300);
      const deep = new Function(
        'message',
        `return function ${name}(n) { if (n === 0) throw new Error(message); return ${name}(n - 1); }`,
      )(message);
      setTimeout(() => deep(12));
    });
    await waitForEvents('long-errors.example', 'the error', (events) => events.some((e) => e.k === 'x'));
    const request = collector.to('/e').find((r) => {
      const { d, k } = (r.json ?? {}) as { d?: string; k?: string };
      return k === 'x' && d === 'long-errors.example';
    })!;
    assert.ok(Buffer.byteLength(request.body) <= 8192, `${Buffer.byteLength(request.body)} bytes`);
    const error = eventsOf('long-errors.example').find((e) => e.k === 'x')!;
    assert.equal(error.m, '错'.repeat(2000));
    assert.ok(error.st && error.st.length < 4000 && error.st.startsWith('Error: 错'), error.st);
    await context.close();
  });

  test('with data-dnt, a browser asking not to be tracked (Do Not Track or GPC) sends nothing', async () => {
    const snippet = (domain: string) =>
      `<script defer src="${collector.url}/b.js" data-domain="${domain}" data-dnt="true"></script>`;
    const optedOut = await site('dnt.example', snippet('dnt.example'));
    const counted = await site('nodnt.example');
    const asks = {
      dnt: () => Object.defineProperty(Navigator.prototype, 'doNotTrack', { get: () => '1' }),
      gpc: () => Object.defineProperty(Navigator.prototype, 'globalPrivacyControl', { get: () => true }),
    };
    for (const [name, initScript] of Object.entries(asks)) {
      const { context, page } = await visitor({ initScript });
      await page.goto(`${optedOut.url}/`);
      await page.evaluate(
        () =>
          new Promise<void>((resolve) => {
            history.pushState({}, '', '/next');
            setTimeout(() => (window as unknown as { explode: () => void }).explode());
            dispatchEvent(new Event('pagehide'));
            setTimeout(resolve, 20);
          }),
      );
      assert.deepEqual(await sentBy(page), [], `${name}: nothing sent`);
      assert.ok(
        await page.evaluate(() => /\[native code\]/.test(String(history.pushState))),
        'history untouched',
      );
      // A site that does not ask to honour it counts the same browser.
      await page.goto(`${counted.url}/${name}`);
      assert.equal(views(await sentBy(page)).length, 1, `${name}: counted without data-dnt`);
      await context.close();
    }
    // A browser that does not ask is counted by the site that honours it.
    const { context, page } = await visitor();
    await page.goto(`${optedOut.url}/`);
    await waitForEvents('dnt.example', 'a view', (events) => views(events).length === 1);
    await context.close();
  });

  test('under automation (navigator.webdriver) every event says h: 1', async () => {
    const shop = await site('robot.example');
    const automated = await launchChromium();
    try {
      const page = await automated.newPage();
      await page.goto(`${shop.url}/`);
      await page.evaluate(() => setTimeout(() => (window as unknown as { explode: () => void }).explode()));
      const events = await waitForEvents('robot.example', 'a view and an error', (all) => all.length >= 2);
      assert.deepEqual(events.map((event) => `${event.k} h: ${event.h}`).sort(), ['v h: 1', 'x h: 1']);
    } finally {
      await automated.close();
    }
  });
});
