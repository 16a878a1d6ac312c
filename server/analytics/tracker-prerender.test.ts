import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TrackerEvent, trackerEventSchema } from '../../protocol/analytics.ts';
import { spawnChromium } from '../../test/panel/chromium-process.ts';
import { type Answer, startReceiver } from '../http/fixtures/receiver.ts';
import { within } from '../testing.ts';
import { siteNames, visitorSwitches } from './fixtures/site.ts';
import { trackerScript, trackerSnippet } from './tracker.ts';

/**
 * A page prerendered by Speculation Rules, in Chromium as people run it: Playwright turns prerendering
 * off, so this runs Debian's Chromium itself (`--headless=new`), with no automation. Page /p1 asks for
 * /p2 to be prerendered, and goes to it when the test says so (it asks the site every 100 ms).
 */
test('a prerendered page sends nothing until shown; then its view, and load times from its activation', async (t) => {
  const script = await trackerScript();
  const collector = await startReceiver();
  collector.answer = (request): Answer =>
    request.path === '/b.js'
      ? { status: 200, body: script, headers: { 'content-type': 'text/javascript' } }
      : { status: 204, headers: { 'access-control-allow-origin': '*' } };
  const site = await startReceiver();
  let go = false;
  const snippet = trackerSnippet(collector.url, 'pre.example');
  const rules = `<script type="speculationrules">{"prerender":[{"source":"list","urls":["/p2"],"eagerness":"immediate"}]}</script>`;
  const goWhenTold = `<script>const ask = () => fetch('/go').then((r) => r.text()).then((go) => go === 'yes' ? location.href = '/p2' : setTimeout(ask, 100)); ask();</script>`;
  // Tells the site what the prerendered page sees: whether it is prerendering, and at its activation
  // its activationStart and FCP; then leaves for /p3, so the engagement with its vitals is sent.
  const probe = `<script>
    fetch('/log?prerendering=' + document.prerendering);
    document.addEventListener('prerenderingchange', () => {
      const fcp = performance.getEntriesByName('first-contentful-paint')[0];
      fetch('/log?activation=' + performance.getEntriesByType('navigation')[0].activationStart + '&fcp=' + (fcp ? fcp.startTime : ''));
      setTimeout(() => { location.href = '/p3'; }, 1000);
    });
  </script>`;
  site.answer = (request) => {
    if (request.path === '/go') return { status: 200, body: go ? 'yes' : 'no' };
    if (request.path === '/log') return { status: 204 };
    const head = request.path === '/p1' ? rules + goWhenTold : request.path === '/p2' ? probe : '';
    const body = `<!doctype html><html><head>${snippet}${head}</head><body><h1>Page ${request.path} with words enough to paint</h1></body></html>`;
    return { status: 200, body, headers: { 'content-type': 'text/html; charset=utf-8' } };
  };
  const origin = site.url.replace('127.0.0.1', 'pre.example');
  const chromium = spawnChromium([...visitorSwitches, siteNames, `${origin}/p1`]);
  t.after(async () => {
    await chromium.close();
    await Promise.all([collector.close(), site.close()]);
  });
  const events = () =>
    collector.to('/e').map((request) => {
      const event = trackerEventSchema.parse(request.json);
      return event;
    });
  const of = (path: string) => (event: TrackerEvent) => new URL(event.u).pathname === path;
  const logged = (name: string) => site.to('/log').find((request) => request.query.has(name))?.query;

  // /p2 runs, prerendering, and sends nothing.
  await within(20_000, 'the prerendered page runs', () => logged('prerendering') !== undefined);
  assert.equal(logged('prerendering')?.get('prerendering'), 'true', 'Chromium prerendered /p2');
  await within(10_000, 'the view of /p1', () => events().some(of('/p1')));
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.deepEqual(events().filter(of('/p2')), [], 'nothing from the prerendered page');

  // Shown: its view, then (when it is left) its load times, counted from its activation.
  go = true;
  await within(20_000, 'the engagement of /p2', () => events().some((e) => of('/p2')(e) && e.k === 'e'));
  const activated = logged('activation')!;
  const activationStart = Number(activated.get('activation'));
  assert.ok(activationStart > 0, `activationStart ${activationStart}`);
  const sent = events().filter(of('/p2'));
  assert.deepEqual(
    sent.map((event) => event.k),
    ['v', 'e'],
  );
  const w = sent[1]?.k === 'e' ? (sent[1].w ?? {}) : {};
  // Measured from the activation (1.5 s at least after the prerendering began): a paint before it
  // counts 0, one after it (Chromium paints a prerendered page once shown) its time since, which on a
  // busy machine may be long but stays below activationStart, where a time from navigation would be.
  assert.ok(activationStart > 1500, `activationStart ${activationStart}`);
  const paintedBefore = activated.get('fcp') !== '';
  assert.ok(
    w.fcp !== undefined && (paintedBefore ? w.fcp === 0 : w.fcp > 0 && w.fcp < activationStart),
    JSON.stringify({ w, activated: String(activated) }),
  );
  assert.ok(w.lcp !== undefined && w.lcp >= w.fcp && w.lcp < activationStart, JSON.stringify(w));
  assert.equal(w.ttfb, 0, JSON.stringify(w));
});
