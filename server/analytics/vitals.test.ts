import assert from 'node:assert/strict';
import { test } from 'node:test';
import { vitalNames } from '../../protocol/analytics.ts';
import { bucketValue, p75, vitalBucket, vitalRating } from './vitals.ts';

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
  assert.ok(Math.abs(p - 600) / 600 <= 0.025, String(p));
  assert.equal(p75('lcp', new Map()), null);
});

test("ratings follow web.dev's thresholds", () => {
  assert.equal(vitalRating('lcp', 2500), 'good');
  assert.equal(vitalRating('lcp', 2501), 'needs-improvement');
  assert.equal(vitalRating('lcp', 4001), 'poor');
  assert.equal(vitalRating('cls', 0.1), 'good');
  assert.equal(vitalRating('inp', 600), 'poor');
});
