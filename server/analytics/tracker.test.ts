import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { TrackerEvent } from '../../protocol/analytics.ts';
import { launchChromium } from '../../test/panel/harness.ts';
import { within } from '../testing.ts';
import { siteNames } from './fixtures/site.ts';
import { chromiumTracker, views } from './fixtures/tracker-browser.ts';
import { trackerSnippet } from './tracker.ts';

describe('the script in Chromium', () => {
  const kit = chromiumTracker();
  const { site, visitor, eventsOf, waitForEvents, sentBy, sentWhen } = kit;

  test('a page view at load: the domain, the URL and the referrer’s origin, as text/plain with no preflight, nothing stored', async () => {
    const shop = await site('load.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/pricing?utm_source=news`, { referer: 'http://news.example/item?id=1' });
    const [view] = await waitForEvents('load.example', 'a view', (events) => views(events).length === 1);
    assert.deepEqual(view, {
      k: 'v',
      d: 'load.example',
      u: `${shop.url}/pricing?utm_source=news`,
      r: 'http://news.example',
    });

    const posts = kit.collector.received.filter((r) => r.path === '/e' || r.method === 'OPTIONS');
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

  test('the page’s address without its fragment and query but utm_ parameters, the referrer as its origin, an inline script’s address as the page’s', async () => {
    // Code run by eval and new Function names the page's address inside its frames, not at their end.
    const inline = `<script>function inline() { throw new Error('inline'); }
      function viaEval() { eval("(function inner() { throw new Error('evaled'); })()"); }
      function viaFunction() { new Function("throw new Error('made');")(); }</script>`;
    const shop = await site('secrets.example', trackerSnippet(kit.collector.url, 'secrets.example') + inline);
    const { context, page } = await visitor();
    await page.goto(
      `${shop.url}/account?session=SECRET1&utm_source=mail&utm_campaign=spring%20sale&next=/a?b#access_token=SECRET2`,
      { referer: 'https://mail.example/inbox/42?token=SECRET3#SECRET4' },
    );
    await page.evaluate(() => {
      const scripts = window as unknown as Record<'inline' | 'viaEval' | 'viaFunction', () => void>;
      for (const name of ['inline', 'viaEval', 'viaFunction'] as const) setTimeout(() => scripts[name]());
    });
    await page.evaluate(() => history.pushState({}, '', '/settings?session=SECRET5#SECRET6'));
    await page.evaluate(() => dispatchEvent(new Event('pagehide')));
    const sent = await waitForEvents(
      'secrets.example',
      'a view, three errors, the time, a view, the time',
      (all) => all.length === 7,
    );
    const bodies = kit.collector.to('/e').filter((r) => (r.json as TrackerEvent).d === 'secrets.example');
    assert.ok(
      bodies.every((r) => !r.body.includes('SECRET')),
      bodies.map((r) => r.body).join('\n'),
    );
    const page1 = `${shop.url}/account?utm_source=mail&utm_campaign=spring+sale`;
    assert.deepEqual(
      views(sent).map((view) => [view.u, view.k === 'v' ? view.r : null]),
      [
        [page1, 'https://mail.example'],
        [`${shop.url}/settings`, undefined],
      ],
    );
    const error = sent.find((event) => event.k === 'x');
    assert.ok(error?.k === 'x' && error.s === `${shop.url}/account`, JSON.stringify(error));
    assert.match(error.st ?? '', new RegExp(`at inline \\(${shop.url}/account:\\d+:\\d+\\)`));
    await context.close();
  });

  test('without data-domain the domain is the page’s host name; /script.js is the same script', async () => {
    const shop = await site(
      'bare-host.example',
      `<script defer src="${kit.collector.url}/script.js"></script>`,
    );
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    const [view] = await waitForEvents('bare-host.example', 'a view', (events) => views(events).length === 1);
    assert.equal(view?.u, `${shop.url}/`);
    await context.close();
  });

  test('loaded from under a path prefix (mon behind a proxy at /mon/), the script posts to the /e beside it', async () => {
    const shop = await site(
      'prefix.example',
      `<script defer src="${kit.collector.url}/mon/b.js" data-domain="prefix.example"></script>`,
    );
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    const posted = () =>
      kit.collector.received.filter(
        (r) => r.method === 'POST' && (r.json as { d?: string })?.d === 'prefix.example',
      );
    await within(15_000, 'a view of prefix.example', () => posted().length > 0);
    assert.deepEqual(
      posted().map((r) => r.path),
      ['/mon/e'],
    );
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
    const arrived = kit.collector
      .to('/e')
      .filter((r) => (r.json as TrackerEvent).d === 'order.example')
      .map((r) => ({ k: (r.json as TrackerEvent).k, at: r.at }));
    assert.deepEqual(
      arrived.map((r) => r.k),
      ['v', 'e', 'v'],
    );
    const [engagementAnswered] = kit.answeredAt;
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
      ['/a from http://news.example', '/a from undefined'],
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

  test('a page that never shifts reports a CLS of 0, so it counts in the p75', async () => {
    const shop = await site('stable.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('stable.example', 'a view', (events) => views(events).length === 1);
    await page.goto(`${shop.url}/next`);
    const events = await waitForEvents('stable.example', 'the next view', (all) => views(all).length === 2);
    const hidden = events.find((event) => event.k === 'e');
    assert.ok(hidden?.k === 'e', JSON.stringify(events));
    assert.equal(hidden.w?.cls, 0, JSON.stringify(hidden.w));
    await context.close();
  });

  test('with data-dnt, a browser asking not to be tracked (Do Not Track or GPC) sends nothing', async () => {
    const snippet = (domain: string) =>
      `<script defer src="${kit.collector.url}/b.js" data-domain="${domain}" data-dnt="true"></script>`;
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
    const automated = await launchChromium([siteNames]);
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
