import { type VitalName, type VitalRating, vitalThresholds } from '../../protocol/analytics.ts';

/**
 * Web Vitals are kept as histograms (`analytics_vitals`) so that hours and days merge and a p75 of
 * any range is read from counts, not samples. Buckets grow by 5%: a p75 read off them is within 2.5%
 * of the sample's. CLS is scaled by 1,000 first, so all metrics share one bucket scale.
 */
const GROWTH = 1.05;
const LOG_GROWTH = Math.log(GROWTH);

function scaled(metric: VitalName, value: number): number {
  return metric === 'cls' ? value * 1000 : value;
}

/** The bucket a value falls in: 0 holds values below 1 (ms, or 0.001 of CLS). */
export function vitalBucket(metric: VitalName, value: number): number {
  const v = scaled(metric, value);
  return v < 1 ? 0 : 1 + Math.floor(Math.log(v) / LOG_GROWTH);
}

/** The value a bucket stands for: its middle (geometric), in the metric's own unit. */
export function bucketValue(metric: VitalName, bucket: number): number {
  const v = bucket === 0 ? 0.5 : GROWTH ** (bucket - 1) * Math.sqrt(GROWTH);
  return metric === 'cls' ? v / 1000 : v;
}

/** The 75th percentile of a histogram (bucket → count), or null when it is empty. */
export function p75(metric: VitalName, histogram: ReadonlyMap<number, number>): number | null {
  let total = 0;
  for (const n of histogram.values()) total += n;
  if (total === 0) return null;
  const rank = Math.ceil(total * 0.75);
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen >= rank) return bucketValue(metric, bucket);
  }
  return null;
}

/** web.dev's rating of a p75. */
export function vitalRating(metric: VitalName, value: number): VitalRating {
  const { good, poor } = vitalThresholds[metric];
  return value <= good ? 'good' : value > poor ? 'poor' : 'needs-improvement';
}
