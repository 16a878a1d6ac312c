import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { TrackerEvent } from '../../protocol/analytics.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { within } from '../testing.ts';
import { topFrame } from './fingerprint.ts';
import { chromiumTracker, views } from './fixtures/tracker-browser.ts';
import { trackerScript, trackerSnippet } from './tracker.ts';

/**
 * What the script measures and how it sends it, each held to a figure a wrong script would miss: the
 * engagement of a page hidden and never shown again, a request that outlives its page, the time to
 * first byte of a slow server, INP of quick interactions, CLS windows, the frames of an error's stack.
 */
describe('the script in Chromium: what it measures and how it sends it', () => {
  const kit = chromiumTracker();
  const { site, visitor, waitForEvents, sentBy } = kit;

  /** The engagement `domain`'s page sent when it was left for another page of the site. */
  const engagementAtLeaving = async (page: Page, domain: string, url: string) => {
    await page.goto(`${url}/next`);
    const events = await waitForEvents(domain, 'the next view', (all) => views(all).length === 2);
    const engaged = events.find((event) => event.k === 'e');
    assert.ok(engaged?.k === 'e', JSON.stringify(events));
    return engaged;
  };

  test('a page hidden and never shown again (a phone discards it without pagehide) sends its time and vitals', async () => {
    const shop = await site('hidden.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('hidden.example', 'a view', (events) => views(events).length === 1);
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
    // Headless Chromium keeps every page visible (another tab in front, a minimized window and the
    // lifecycle states of DevTools leave it so): the page is hidden as the browser hides it, its
    // state first, then the event on the document.
    await page.evaluate(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
      document.dispatchEvent(new Event('visibilitychange', { bubbles: true }));
    });
    const sent = await waitForEvents('hidden.example', 'the engagement', (all) => all.length === 2);
    const [, engaged] = sent;
    assert.ok(engaged?.k === 'e', JSON.stringify(sent));
    assert.ok(engaged.t > 0, `engaged ${engaged.t} ms`);
    assert.ok(engaged.w?.ttfb !== undefined && engaged.w.fcp !== undefined, JSON.stringify(engaged.w));
    await context.close();
  });

  test('an event is sent with keepalive: its request outlives the page that sent it', async (t) => {
    // A collector of its own, which sees whether the browser keeps a request open for its answer
    // (held a second) once the page that sent it is gone, or drops it.
    const script = await trackerScript();
    const outcomes: string[] = [];
    const collector = http.createServer((request, response) => {
      const cors = { 'access-control-allow-origin': '*' };
      if (request.url === '/b.js') {
        response.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        return;
      }
      // Leaving the page also sends its engagement to this collector: each outcome names its event's
      // kind, so that only the view's is judged.
      let body = '';
      request.setEncoding('utf8');
      request.on('data', (chunk: string) => {
        body += chunk;
      });
      const kind = () => /"k":"(\w)"/.exec(body)?.[1] ?? '?';
      response.on('close', () => {
        if (!response.writableFinished) outcomes.push(`${kind()} dropped`);
      });
      setTimeout(() => {
        if (response.destroyed) return;
        response.writeHead(204, cors).end();
        outcomes.push(`${kind()} answered`);
      }, 1000);
    });
    collector.listen(0, '127.0.0.1');
    await once(collector, 'listening');
    t.after(() => {
      collector.closeAllConnections();
      collector.close();
    });
    const base = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const shop = await site('keepalive.example', trackerSnippet(base, 'keepalive.example'));
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await page.waitForFunction(
      () => (window as unknown as { trackerPosts: string[] }).trackerPosts.length === 1,
    );
    // The view is in flight (its answer held): the visitor goes elsewhere.
    await page.goto('about:blank');
    const view = () => outcomes.find((outcome) => outcome.startsWith('v '));
    await within(5000, 'the view answered or dropped', () => view() !== undefined);
    assert.equal(view(), 'v answered');
    await context.close();
  });

  test('TTFB counts until the first byte of the answer: a server 300 ms slow to answer the page', async () => {
    const shop = await site('slow.example');
    const fast = shop.answer;
    shop.answer = (request, n) =>
      request.path === '/slow'
        ? new Promise((resolve) => setTimeout(() => resolve(fast(request, n)), 300))
        : fast(request, n);
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/slow`);
    await waitForEvents('slow.example', 'a view', (events) => views(events).length === 1);
    const { w } = await engagementAtLeaving(page, 'slow.example', shop.url);
    assert.ok(w?.ttfb !== undefined && w.ttfb >= 300, JSON.stringify(w));
    await context.close();
  });

  test('a page whose interactions are all quick still has an INP', async () => {
    const shop = await site('quick.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('quick.example', 'a view', (events) => views(events).length === 1);
    // A click on text: no handler of the page's, far below the 40 ms of the events observed.
    await page.click('h1');
    await page.waitForFunction(() => performance.getEntriesByType('first-input').length > 0);
    const { w } = await engagementAtLeaving(page, 'quick.example', shop.url);
    assert.ok(w?.inp !== undefined && w.inp >= 0, JSON.stringify(w));
    await context.close();
  });

  test('CLS is the largest window of shifts: two shifts 1.2 s apart are two windows, not their sum', async () => {
    const shop = await site('windows.example');
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('windows.example', 'a view', (events) => views(events).length === 1);
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
    // Down 200 px, and 1.2 s later down 200 px more; the shifts as the browser measured them.
    const shifts = await page.evaluate(async () => {
      const frames = () =>
        new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
      const top = document.getElementById('top')!;
      top.style.height = '200px';
      await frames();
      await new Promise((resolve) => setTimeout(resolve, 1200));
      top.style.height = '400px';
      await frames();
      return new Promise<{ value: number; at: number }[]>((resolve) =>
        new PerformanceObserver((list) =>
          resolve(
            list.getEntries().map((entry) => ({
              value: (entry as unknown as { value: number }).value,
              at: entry.startTime,
            })),
          ),
        ).observe({ type: 'layout-shift', buffered: true }),
      );
    });
    assert.equal(shifts.length, 2, JSON.stringify(shifts));
    const [first, second] = shifts as [{ value: number; at: number }, { value: number; at: number }];
    assert.ok(
      second.at - first.at > 1000 && first.value > 0.01 && second.value > 0.01,
      JSON.stringify(shifts),
    );
    const { w } = await engagementAtLeaving(page, 'windows.example', shop.url);
    assert.ok(
      w?.cls !== undefined && Math.abs(w.cls - Math.max(first.value, second.value)) < 1e-9,
      JSON.stringify({ w, shifts }),
    );
    await context.close();
  });

  test('an error’s stack: its top 10 frames, in which mon finds the site’s own below a library’s', async (t) => {
    const cdn = await startReceiver();
    t.after(() => cdn.close());
    cdn.answer = () => ({
      status: 200,
      body: `window.lib = { fail() { throw new Error('the library failed'); } };`,
      headers: { 'content-type': 'text/javascript', 'access-control-allow-origin': '*' },
    });
    const cdnUrl = cdn.url.replace('127.0.0.1', 'cdn.example');
    // Stacks 50 frames deep: the script keeps 10 of them.
    const own = `<script>Error.stackTraceLimit = 50;
function deep(n) { return n === 0 ? lib.fail() : deep(n - 1); }
function shallow() { throw new Error('near the top'); }</script>`;
    const shop = await site(
      'frames.example',
      `${trackerSnippet(kit.collector.url, 'frames.example')}<script crossorigin="anonymous" src="${cdnUrl}/lib.js"></script>${own}`,
    );
    const { context, page } = await visitor();
    await page.goto(`${shop.url}/`);
    await waitForEvents('frames.example', 'a view', (events) => views(events).length === 1);
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          const call = window as unknown as { deep: (n: number) => void; shallow: () => void };
          setTimeout(() => call.deep(30));
          setTimeout(() => call.shallow());
          setTimeout(resolve, 50);
        }),
    );
    const errors = (
      await waitForEvents(
        'frames.example',
        'two errors',
        (all) => all.filter((e) => e.k === 'x').length === 2,
      )
    ).filter((event): event is Extract<TrackerEvent, { k: 'x' }> => event.k === 'x');
    const byMessage = Object.fromEntries(errors.map((error) => [error.m, error.st ?? '']));
    const deepStack = byMessage['the library failed']!.split('\n');
    assert.equal(deepStack.length, 11, deepStack.join('\n'));
    assert.equal(deepStack[0], 'Error:');
    assert.match(deepStack[1]!, /at Object\.fail \(http:\/\/cdn\.example:\d+\/lib\.js:1:\d+\)/);
    assert.ok(
      deepStack.slice(2).every((frame) => / at deep \(/.test(frame)),
      deepStack.join('\n'),
    );
    // A stack cut short would leave only the library's frame, the error's group the library's.
    assert.deepEqual(topFrame(byMessage['the library failed']!, 'frames.example'), {
      fn: 'deep',
      url: `${shop.url}/`,
    });
    // A shorter stack arrives whole: the page's own frame, then what called it.
    assert.match(byMessage['near the top']!, /^Error:\n {4}at shallow \(/);
    assert.equal((await sentBy(page)).filter((event) => event.k === 'x').length, 2, 'one event an error');
    await context.close();
  });
});
