import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { startTestSite } from './fixtures/site.ts';
import { chromiumTracker, views } from './fixtures/tracker-browser.ts';
import { trackerSnippet } from './tracker.ts';

/** The script in Chromium, in pages as sites (and their developers) make them. */
describe('the script in Chromium: pages as sites make them', () => {
  const kit = chromiumTracker();
  const { site, visitor, sentBy, sentWhen } = kit;

  test('a single-page app: each path after the first costs one event; the time waits for the page to be hidden', async () => {
    const shop = await site('paths.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/p0`);
    for (let i = 1; i <= 10; i++) {
      await page.evaluate((n) => history.pushState({}, '', `/p${n}`), i);
      await page.waitForTimeout(20);
    }
    const sent = await sentWhen(page, 'eleven views', (all) => views(all).length === 11);
    // The first move sends the loaded page's vitals (and waits for their answer); later ones a view.
    assert.deepEqual(
      sent.map((event) => event.k),
      ['v', 'e', ...Array(10).fill('v')],
    );
    await page.evaluate(() => dispatchEvent(new Event('pagehide')));
    const [, , ...rest] = (await sentBy(page)).filter((event) => event.k === 'e');
    const [first, last] = (await sentBy(page)).filter((event) => event.k === 'e');
    assert.deepEqual(rest, []);
    assert.ok(first?.k === 'e' && first.w !== undefined);
    // The time of /p1 to /p10, sent with the page /p10 at once.
    assert.ok(last?.k === 'e' && last.t >= 180 && last.w === undefined, JSON.stringify(last));
    assert.equal(new URL(last.u).pathname, '/p10');
    await context.close();
  });

  test('never more than mon takes from an address: 30 at once, then 2 a second', async () => {
    const shop = await site('burst.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/r0`);
    await page.waitForTimeout(600);
    // In the page, so that the gaps are the page's: 60 paths at once, then 10 more a second later.
    const { burst, later, ms } = await page.evaluate(async () => {
      const posts = (window as unknown as { trackerPosts: string[] }).trackerPosts;
      const at = performance.now();
      for (let i = 1; i <= 60; i++) history.pushState({}, '', `/r${i}`);
      // (The view after the vitals leaves once they are answered.)
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const burst = posts.length;
      for (let i = 61; i <= 70; i++) history.pushState({}, '', `/r${i}`);
      return { burst, later: posts.length - burst, ms: performance.now() - at };
    });
    // The load's view, then the burst's 30 (the bucket full again after 600 ms): 31.
    assert.equal(burst, 31);
    // Two a second since the bucket emptied, give or take the one whose token was nearly whole at the end.
    assert.ok(Math.abs(later - Math.floor(ms / 500)) <= 1, `${later} events in ${ms} ms`);
    const sent = await sentBy(page);
    assert.equal(new URL(sent.at(-1)!.u).pathname, `/r${60 + later}`);
    await context.close();
  });

  test('a fetch wrapper that throws never throws into the page through pushState', async () => {
    const wrapper = `<script>const f = window.fetch; window.fetch = (u, o) => { if (!String(u).startsWith(location.origin)) throw new Error('foreign fetch'); return f(u, o); };</script>`;
    const shop = await site('throws.example', wrapper + trackerSnippet(kit.collector.url, 'throws.example'));
    const wrappedAgain = `<script>const g = window.fetch; window.fetch = () => 'not a promise';</script>`;
    const odd = await site('odd.example', wrappedAgain + trackerSnippet(kit.collector.url, 'odd.example'));
    for (const url of [shop.url, odd.url]) {
      const { context, page } = await visitor();
      const thrown: string[] = [];
      page.on('pageerror', (error) => thrown.push(String(error)));
      await page.goto(`${url}/a`);
      const pushed = await page.evaluate(() => {
        try {
          history.pushState({}, '', '/b');
          history.pushState({}, '', '/c');
          dispatchEvent(new Event('pagehide'));
          return location.pathname;
        } catch (error) {
          return String(error);
        }
      });
      assert.equal(pushed, '/c');
      await page.waitForTimeout(100);
      assert.deepEqual(thrown, []);
      await context.close();
    }
  });

  test('the snippet twice on a page counts once', async () => {
    const snippet = trackerSnippet(kit.collector.url, 'twice.example');
    const shop = await site('twice.example', snippet + snippet);
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/a`);
    await page.waitForLoadState('load');
    await page.evaluate(() => history.pushState({}, '', '/b'));
    const sent = await sentWhen(page, 'the view of /b', (all) => views(all).length >= 2);
    await page.waitForTimeout(100);
    assert.deepEqual(
      (await sentBy(page)).map((event) => `${event.k} ${new URL(event.u).pathname}`),
      ['v /a', 'e /a', 'v /b'],
      JSON.stringify(sent),
    );
    await context.close();
  });

  test('a developer’s copy sends nothing: localhost, loopback addresses, *.localhost, a file', async () => {
    const snippet = trackerSnippet(kit.collector.url, 'dev.example');
    const loopback = await startTestSite(snippet);
    const v6 = await startReceiver({ host: '::1' }).catch(() => null);
    if (v6)
      v6.answer = () => ({
        status: 200,
        body: `<p>six</p>${snippet}`,
        headers: { 'content-type': 'text/html' },
      });
    const dir = await mkdtemp(join(tmpdir(), 'mon-tracker-'));
    await writeFile(join(dir, 'page.html'), `<p>a file</p>${snippet}`);
    const port = new URL(loopback.url).port;
    const pages = [
      `${loopback.url}/`,
      `http://localhost:${port}/`,
      `http://shop.localhost:${port}/`,
      ...(v6 ? [`${v6.url}/`] : []),
      `file://${dir}/page.html`,
    ];
    try {
      for (const url of pages) {
        const { context, page } = await visitor();
        await page.goto(url);
        await page.waitForLoadState('load');
        await page.evaluate(() => {
          history.pushState({}, '', '#x');
          dispatchEvent(new Event('pagehide'));
        });
        assert.deepEqual(await sentBy(page), [], url);
        await context.close();
      }
      // The same snippet on a site's own name counts.
      const shop = await site('dev.example', snippet);
      const { context, page } = await visitor();
      await page.goto(`${shop.url}/`);
      await sentWhen(page, 'a view', (all) => views(all).length === 1);
      await context.close();
    } finally {
      await Promise.all([loopback.close(), v6?.close(), rm(dir, { recursive: true, force: true })]);
    }
  });
});
