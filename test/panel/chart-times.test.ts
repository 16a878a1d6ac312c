import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import type { AnalyticsRead } from '../../protocol/analytics.ts';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import type { HostRead } from '../../protocol/hosts.ts';
import { writeTotals } from '../../server/analytics/read-testkit.ts';
import { addHostSample } from '../../server/hosts/rollups.ts';
import { artifactPath, type PanelWorld, startPanelWorld, withSignedInPage } from './harness.ts';

/**
 * The times of the panel's charts in browsers west and east of UTC. Day buckets are UTC days (the
 * server's daily rollups): each reads as its UTC date, with no time of day, in the reading, the legend,
 * and the summary (the axis's ticks, drawn on a canvas, in panel/src/lib/chart-words.test.ts), and the page
 * says "UTC days". Finer buckets are moments: local times, and
 * the page names the time zone. The server runs in this process on a fake clock at Tuesday 7 April 2026,
 * 15:00 UTC; shop.example's rollups and web-1's samples are written through the real writer.
 */

const T0 = Date.UTC(2026, 3, 7, 15, 0);
const setupToken = 'setup-token-for-the-chart-times';
const admin = { email: 'admin@example.com', password: 'correct horse battery staple' };
const SITE = 'shop.example';
const zones = ['America/Los_Angeles', 'Pacific/Auckland'];

let world: PanelWorld;

before(async () => {
  world = await startPanelWorld({ at: T0, setupToken, admin });
  await world.api('POST', '/sites', { domain: SITE });
  // A UTC day each from 31 March (26 visitors) to today, and the hours of the last day.
  for (let day = 0; day <= 7; day++) {
    const at = Date.UTC(2026, 2, 31) + day * DAY;
    await writeTotals(world.server, SITE, 'd', at, { visitors: 26 + day, views: 80 + day });
  }
  for (let at = T0 - 24 * HOUR; at <= T0; at += HOUR) {
    await writeTotals(world.server, SITE, 'h', Math.floor(at / HOUR) * HOUR, { visitors: 3, views: 9 });
  }
  await world.api('POST', '/hosts', { name: 'web-1' });
  await world.server.deps.store.writer.run((db) => {
    const metrics = { cpu: 20, memory: 40, swap: null, disk: 50, diskRead: 0, diskWrite: 0 };
    const sample = { ...metrics, netRx: 0, netTx: 0, load1: 1, load5: 1, load15: 1, temperature: null };
    // Every six hours for ten days, every ten minutes for the last day.
    for (let ts = T0 - 10 * DAY; ts < T0 - DAY; ts += 6 * HOUR) addHostSample(db, 'web-1', ts, sample);
    for (let ts = T0 - DAY; ts < T0; ts += 10 * MINUTE) addHostSample(db, 'web-1', ts, sample);
  });
});

after(() => world?.close());

const inZone = (zone: string, name: string, fn: (page: Page) => Promise<void>) =>
  withSignedInPage(
    {
      browser: world.browser,
      base: world.base,
      session: world.session,
      now: world.clock.now(),
      context: { locale: 'en-US', timezoneId: zone },
    },
    `${name}-${zone.replace('/', '-')}`,
    fn,
  );

const utcDate = new Intl.DateTimeFormat('en-US', {
  weekday: 'short',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const localTime = (zone: string) =>
  new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone });

/** The chart in `scope`: its summary, and the reading after each key, in order. */
async function chartWords(page: Page, scope: string, keys: string[]) {
  const chart = page.locator(`${scope} [role="img"]`);
  await chart.locator('.u-over').waitFor();
  const summary = await chart.evaluate(
    (c) => document.getElementById(c.getAttribute('aria-describedby') ?? '')?.textContent ?? '',
  );
  await chart.focus();
  const readings: string[] = [];
  for (const key of keys) {
    await page.keyboard.press(key);
    readings.push(String(await page.locator(`${scope} [data-testid="chart-reading"]`).textContent()));
  }
  const legend = String(await page.locator(`${scope} .u-legend .u-series`).first().textContent());
  return { summary, readings, legend };
}

const noTimeOfDay = /\d:\d\d|AM|PM/;

for (const zone of zones) {
  test(`analytics in ${zone}: a day reads as its UTC date, an hour as a local time with the zone named`, async () => {
    const week = await world.api<AnalyticsRead>('GET', `/analytics?site=${SITE}&range=7d`);
    assert.equal(week.series.stepMs, DAY);
    assert.equal(week.series.x[0], Date.UTC(2026, 2, 31));
    const day = await world.api<AnalyticsRead>('GET', `/analytics?site=${SITE}&range=24h`);
    assert.equal(day.series.stepMs, HOUR);
    await inZone(zone, 'analytics-times', async (page) => {
      await page.goto(`${world.base}/analytics?site=${SITE}&range=7d`);
      const caption = page.getByTestId('chart-times');
      await caption.waitFor();
      assert.match(String(await caption.textContent()), /per day; points are UTC days/);
      const w = await chartWords(page, '[data-chart="traffic"]', ['Home', 'End']);
      assert.deepEqual(w.readings, [
        'Tue, Mar 31, 2026: visitors 26, page views 80',
        'Tue, Apr 7, 2026: visitors 33, page views 87',
      ]);
      assert.match(w.legend, /^UTC day:? ?Tue, Apr 7, 2026$/i);
      assert.match(
        w.summary,
        /^From Tue, Mar 31, 2026 to Tue, Apr 7, 2026; points are UTC days\. visitors: lowest 26, .* highest 33 on Tue, Apr 7, 2026\./,
      );
      assert.doesNotMatch(`${w.summary} ${w.readings} ${w.legend}`, noTimeOfDay);
      await page.screenshot({ path: artifactPath(`chart-days-${zone.replace('/', '-')}.png`) });
      assert.match(
        String(await page.getByTestId('times-note').textContent()),
        new RegExp(
          `^Chart points are UTC days; other times are shown in your browser's time zone \\(${zone}\\)`,
        ),
      );

      await page.goto(`${world.base}/analytics?site=${SITE}&range=24h`);
      await page.getByTestId('chart-times').filter({ hasText: 'per hour' }).waitFor();
      assert.equal(
        await page.getByTestId('chart-times').textContent(),
        `Visitors and page views per hour; times in your browser's time zone (${zone})`,
      );
      const h = await chartWords(page, '[data-chart="traffic"]', ['End']);
      assert.equal(
        h.readings[0],
        `${localTime(zone).format(day.series.x.at(-1)!)}: visitors 3, page views 9`,
      );
      assert.match(h.summary, new RegExp(`; times in your browser's time zone \\(${zone}\\)\\.`));
      assert.match(
        String(await page.getByTestId('times-note').textContent()),
        new RegExp(`^Times are shown in your browser's time zone \\(${zone}\\)`),
      );
    });
  });

  test(`the host page in ${zone}: a year's days read as UTC dates, a day's steps as local times`, async () => {
    const year = await world.api<HostRead>('GET', '/hosts/web-1?range=1y');
    assert.equal(year.series.stepMs, DAY);
    const last = year.series.x.at(-1)!;
    assert.equal(last, Date.UTC(2026, 3, 7));
    const firstDay = year.series.x[year.series.cpu.findIndex((v) => v !== null)]!;
    await inZone(zone, 'host-times', async (page) => {
      await page.goto(`${world.base}/hosts/web-1?range=1y`);
      const w = await chartWords(page, '[data-chart="cpu"]', ['End']);
      assert.equal(w.readings[0], 'Tue, Apr 7, 2026: mean 20%, max 20%');
      assert.match(w.summary, new RegExp(`highest 20% on ${utcDate.format(firstDay)}\\.`));
      assert.doesNotMatch(`${w.summary} ${w.readings} ${w.legend}`, noTimeOfDay);
      assert.match(String(await page.getByTestId('times-note').textContent()), /Chart points are UTC days;/);

      await page.goto(`${world.base}/hosts/web-1?range=24h`);
      const day = await world.api<HostRead>('GET', '/hosts/web-1?range=24h');
      assert.ok(day.series.stepMs < DAY);
      const h = await chartWords(page, '[data-chart="cpu"]', ['End']);
      assert.equal(h.readings[0], `${localTime(zone).format(day.series.x.at(-1)!)}: mean 20%, max 20%`);
      assert.match(
        String(await page.getByTestId('times-note').textContent()),
        new RegExp(`Times are shown in your browser's time zone \\(${zone}\\)`),
      );
    });
  });
}
