import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { AnalyticsList, AnalyticsRead, VitalName } from '../../protocol/analytics.ts';
import { readServer, writeDims, writeVitals } from './read-testkit.ts';
import { bucketValue, vitalBucket } from './vitals.ts';

const NOW = Date.UTC(2026, 2, 10, 14, 20);
const SHOP = 'shop.example';
const NINE = Date.UTC(2026, 2, 10, 9);
const TEN = Date.UTC(2026, 2, 10, 10);

/** The p75 the read shows for a sample: its bucket's value, rounded as the read rounds it. */
function shown(metric: VitalName, sample: number): number {
  const value = bucketValue(metric, vitalBucket(metric, sample));
  return metric === 'cls' ? Math.round(value * 1000) / 1000 : Math.round(value);
}

async function server() {
  const kit = await readServer(NOW);
  after(() => kit.server.dispose());
  return kit;
}

test('overall Web Vitals are the p75 of every page’s histograms merged over the range, rated as web.dev rates them', async () => {
  const { server: s, get } = await server();
  await writeVitals(s, SHOP, 'h', NINE, '', 'lcp', [900, 1000, 3000]);
  await writeVitals(s, SHOP, 'h', TEN, '', 'lcp', [1100]);
  await writeVitals(s, SHOP, 'h', NINE, '', 'inp', [100, 300]);
  await writeVitals(s, SHOP, 'h', TEN, '', 'inp', [600, 700]);
  await writeVitals(s, SHOP, 'h', TEN, '', 'cls', [0.05, 0.15, 0.2, 0.3]);
  await writeVitals(s, SHOP, 'h', TEN, '', 'ttfb', [2000]);
  // A page's own histogram, another site, and the day rows are not the overall figure of these hours.
  await writeVitals(s, SHOP, 'h', TEN, '/', 'fcp', [500]);
  await writeVitals(s, 'blog.example', 'h', TEN, '', 'fcp', [500]);
  await writeVitals(s, SHOP, 'd', Date.UTC(2026, 2, 10), '', 'lcp', [9000, 9000, 9000, 9000, 9000]);

  const read = (await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead;
  // Four samples: the p75 is the third smallest.
  assert.deepEqual(read.vitals.overall, {
    lcp: { p75: shown('lcp', 1100), rating: 'good', samples: 4 },
    inp: { p75: shown('inp', 600), rating: 'poor', samples: 4 },
    cls: { p75: shown('cls', 0.2), rating: 'needs-improvement', samples: 4 },
    fcp: null,
    ttfb: { p75: shown('ttfb', 2000), rating: 'poor', samples: 1 },
  });
  assert.ok(Math.abs(read.vitals.overall.lcp!.p75 - 1100) <= 1100 * 0.025);
});

test('per page: the ten most viewed pages of the range, in their order, with their p75s', async () => {
  const { server: s, get } = await server();
  const pages = Array.from(
    { length: 12 },
    (_, i) =>
      ['pages', `/p${String(i).padStart(2, '0')}`, 1, 100 - i] as [AnalyticsList, string, number, number],
  );
  await writeDims(s, SHOP, 'h', TEN, pages);
  // Single pages' Web Vitals are kept by the day: the days the 24 hours touch count.
  const today = Date.UTC(2026, 2, 10);
  const DAY = 24 * 3600_000;
  await writeVitals(s, SHOP, 'd', today, '/p00', 'lcp', [5000]);
  await writeVitals(s, SHOP, 'd', today - DAY, '/p00', 'lcp', [5000, 5000, 1000]);
  await writeVitals(s, SHOP, 'd', today - 2 * DAY, '/p00', 'lcp', [1000, 1000, 1000, 1000]);
  // Hour rows of a page are not read (storage writes none).
  await writeVitals(s, SHOP, 'h', TEN, '/p00', 'lcp', [100, 100, 100, 100, 100]);
  await writeVitals(s, SHOP, 'd', today, '/p09', 'cls', [0.01]);
  // The eleventh page has vitals but is not among the ten.
  await writeVitals(s, SHOP, 'd', today, '/p10', 'lcp', [1000]);

  const read = (await get(`/api/v1/analytics?site=${SHOP}`)).body as AnalyticsRead;
  const byPage = read.vitals.pages!;
  // 24 hours from 14:00 yesterday: single pages' vitals are those of yesterday and today, and say so.
  assert.equal(read.from, Date.UTC(2026, 2, 9, 14));
  assert.equal(read.vitals.pagesFrom, today - DAY);
  assert.deepEqual(
    byPage.map((p) => p.page),
    pages.slice(0, 10).map(([, page]) => page),
  );
  assert.deepEqual(byPage[0]!.vitals.lcp, { p75: shown('lcp', 5000), rating: 'poor', samples: 4 });
  assert.deepEqual(byPage[9]!.vitals.cls, { p75: shown('cls', 0.01), rating: 'good', samples: 1 });
  assert.deepEqual(byPage[1]!.vitals, { lcp: null, inp: null, cls: null, fcp: null, ttfb: null });
  assert.equal(read.vitals.overall.lcp, null);
});

test('a month reads the daily histograms', async () => {
  const { server: s, get } = await server();
  await writeVitals(s, SHOP, 'd', Date.UTC(2026, 1, 20), '', 'fcp', [1000, 1200]);
  await writeVitals(s, SHOP, 'd', Date.UTC(2026, 2, 10), '', 'fcp', [2500, 2600]);
  await writeVitals(s, SHOP, 'h', Date.UTC(2026, 2, 10, 3), '', 'fcp', [9000]);
  await writeDims(s, SHOP, 'd', Date.UTC(2026, 2, 10), [['pages', '/', 3, 3]]);
  await writeVitals(s, SHOP, 'd', Date.UTC(2026, 1, 20), '/', 'fcp', [1000]);

  const read = (await get(`/api/v1/analytics?site=${SHOP}&range=30d`)).body as AnalyticsRead;
  assert.deepEqual(read.vitals.overall.fcp, {
    p75: shown('fcp', 2500),
    rating: 'needs-improvement',
    samples: 4,
  });
  assert.deepEqual(read.vitals.pages, [
    {
      page: '/',
      vitals: {
        lcp: null,
        inp: null,
        cls: null,
        fcp: { p75: shown('fcp', 1000), rating: 'good', samples: 1 },
        ttfb: null,
      },
    },
  ]);
});
