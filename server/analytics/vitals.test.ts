import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type VitalName, type VitalRating, vitalNames, vitalThresholds } from '../../protocol/analytics.ts';
import { bucketRating, bucketValue, p75, vitalBucket, vitalRating } from './vitals.ts';

test('a value read back from its bucket is within 2.5% of it', () => {
  for (const metric of vitalNames) {
    for (const value of metric === 'cls' ? [0.002, 0.05, 0.1, 0.31, 2.5] : [3, 120, 800, 2500, 40_000]) {
      const back = bucketValue(metric, vitalBucket(metric, value));
      assert.ok(Math.abs(back - value) / value <= 0.025, `${metric} ${value} → ${back}`);
    }
  }
});

test('p75 of a histogram is the bucket holding the 75th percentile sample', () => {
  const values = [100, 200, 300, 400, 500, 600, 700, 800];
  const histogram = new Map<number, number>();
  for (const v of values) {
    const b = vitalBucket('lcp', v);
    histogram.set(b, (histogram.get(b) ?? 0) + 1);
  }
  const p = p75('lcp', histogram)!;
  assert.ok(Math.abs(p.value - 600) / 600 <= 0.025, String(p.value));
  assert.equal(p.rating, 'good');
  assert.equal(p75('lcp', new Map()), null);
});

test("ratings follow web.dev's thresholds", () => {
  assert.equal(vitalRating('lcp', 2500), 'good');
  assert.equal(vitalRating('lcp', 2501), 'needs-improvement');
  assert.equal(vitalRating('lcp', 4001), 'poor');
  assert.equal(vitalRating('cls', 0.1), 'good');
  assert.equal(vitalRating('inp', 600), 'poor');
});

test("a p75 right at a threshold gets the rating of the measured value, not of the bucket's middle", () => {
  // Each row: values just inside and just outside each threshold, with web.dev's rating of each.
  const cases: [VitalName, number, VitalRating][] = [
    ['lcp', 2480, 'good'],
    ['lcp', 2500, 'good'],
    ['lcp', 2501, 'needs-improvement'],
    ['lcp', 4000, 'needs-improvement'],
    ['lcp', 4001, 'poor'],
    ['inp', 200, 'good'],
    ['inp', 496, 'needs-improvement'],
    ['inp', 504, 'poor'],
    ['cls', 0, 'good'],
    ['cls', 0.099, 'good'],
    ['cls', 0.1, 'good'],
    ['cls', 0.1001, 'needs-improvement'],
    ['cls', 0.249, 'needs-improvement'],
    ['cls', 0.25, 'needs-improvement'],
    ['cls', 0.2501, 'poor'],
    ['fcp', 1820, 'needs-improvement'],
    ['fcp', 1790, 'good'],
    ['fcp', 2990, 'needs-improvement'],
    ['fcp', 3010, 'poor'],
    ['ttfb', 790, 'good'],
    ['ttfb', 801, 'needs-improvement'],
    ['ttfb', 1800, 'needs-improvement'],
    ['ttfb', 1810, 'poor'],
  ];
  for (const [metric, value, rating] of cases) {
    assert.equal(vitalRating(metric, value), rating, `web.dev: ${metric} ${value}`);
    const p = p75(metric, new Map([[vitalBucket(metric, value), 4]]))!;
    assert.equal(p.rating, rating, `${metric} ${value}: read back as ${p.value}`);
    // The value shown is rated the same as the bucket.
    const shown = metric === 'cls' ? Math.round(p.value * 1000) / 1000 : Math.round(p.value);
    assert.equal(vitalRating(metric, shown), rating, `${metric} ${value}: shown as ${shown}`);
  }
});

test('every bucket lies within one rating, and CLS 0 has a bucket of its own', () => {
  for (const metric of vitalNames) {
    const { good, poor } = vitalThresholds[metric];
    for (const value of [
      good * 0.3,
      good * 0.97,
      good,
      good * 1.01,
      poor * 0.99,
      poor,
      poor * 1.01,
      poor * 9,
    ]) {
      assert.equal(
        bucketRating(metric, vitalBucket(metric, value)),
        vitalRating(metric, value),
        `${metric} ${value}`,
      );
    }
  }
  assert.equal(bucketValue('cls', vitalBucket('cls', 0)), 0);
  assert.notEqual(vitalBucket('cls', 0), vitalBucket('cls', 0.0001));
});

test('histograms written with the earlier buckets (5% from 1 ms) still read, merged with the current ones', () => {
  // The earlier scale: 1 + floor(log(v) / log(1.05)), v in ms or CLS × 1,000.
  const earlier = 1 + Math.floor(Math.log(2000) / Math.log(1.05));
  const mixed = new Map([
    [earlier, 3],
    [vitalBucket('lcp', 5000), 1],
  ]);
  const p = p75('lcp', mixed)!;
  assert.ok(Math.abs(p.value - 2000) / 2000 <= 0.05, String(p.value));
  assert.equal(p.rating, 'good');
  const cls = p75('cls', new Map([[1 + Math.floor(Math.log(50) / Math.log(1.05)), 2]]))!;
  assert.ok(Math.abs(cls.value - 0.05) / 0.05 <= 0.05, String(cls.value));
});
