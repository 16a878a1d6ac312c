import { type VitalName, type VitalRating, vitalThresholds } from '../../protocol/analytics.ts';

/**
 * Web Vitals are kept as histograms (`analytics_vitals`) so that hours and days merge and a p75 of
 * any range is read from counts, not samples. Buckets grow by about 5% (a p75 read off them is within
 * 2.5% of the sample's), and web.dev's two thresholds of each metric fall on bucket edges: a bucket
 * is wholly good, wholly poor or wholly between, so the p75's rating is exact, also for a p75 right
 * at a threshold.
 *
 * Bucket `FIRST + i` holds the values in (good × growth^(i−1), good × growth^i]; `ZERO` holds 0.
 * Buckets below `ZERO` are of the earlier scale (5% steps from 1 ms, CLS × 1,000), in databases
 * written before the thresholds were edges: a read counts them in the bucket their middle falls in.
 */
const ZERO = 1000;
const FIRST = 2000;
/** Steps from the lowest to the highest bucket kept: a value beyond goes to the last. */
const STEPS = 900;

/** Per metric: the step (1.05 at most) that puts `poor` exactly `steps` buckets above `good`. */
const scales = Object.fromEntries(
  Object.entries(vitalThresholds).map(([metric, { good, poor }]) => {
    const steps = Math.ceil(Math.log(poor / good) / Math.log(1.05));
    return [metric, { good, steps, logGrowth: Math.log(poor / good) / steps }];
  }),
) as Record<VitalName, { good: number; steps: number; logGrowth: number }>;

/** The bucket a value falls in. */
export function vitalBucket(metric: VitalName, value: number): number {
  if (!(value > 0)) return ZERO;
  const { good, logGrowth } = scales[metric];
  // The epsilon keeps a value exactly on an edge (4,000 ms) in the bucket it closes.
  const i = Math.ceil(Math.log(value / good) / logGrowth - 1e-9);
  return FIRST + Math.max(-STEPS, Math.min(STEPS, i));
}

/** The value a bucket stands for: its middle (geometric), in the metric's own unit. */
export function bucketValue(metric: VitalName, bucket: number): number {
  if (bucket < ZERO) return earlierBucketValue(metric, bucket);
  if (bucket === ZERO) return 0;
  const { good, logGrowth } = scales[metric];
  return good * Math.exp((bucket - FIRST - 0.5) * logGrowth);
}

/** The rating of every value in a bucket (an earlier bucket: of its middle). */
export function bucketRating(metric: VitalName, bucket: number): VitalRating {
  if (bucket < ZERO) return vitalRating(metric, bucketValue(metric, bucket));
  const i = bucket === ZERO ? -STEPS : bucket - FIRST;
  return i <= 0 ? 'good' : i > scales[metric].steps ? 'poor' : 'needs-improvement';
}

/** The middle of a bucket of the earlier scale: 5% steps from 1 ms (CLS × 1,000), bucket 0 below 1. */
function earlierBucketValue(metric: VitalName, bucket: number): number {
  const v = bucket === 0 ? 0.5 : 1.05 ** (bucket - 1) * Math.sqrt(1.05);
  return metric === 'cls' ? v / 1000 : v;
}

/**
 * The 75th percentile of a histogram (bucket → count): the middle of the bucket holding the sample of
 * that rank, and that bucket's rating; null when the histogram is empty. Earlier buckets count in
 * the bucket their middle falls in.
 */
export function p75(
  metric: VitalName,
  histogram: ReadonlyMap<number, number>,
): { value: number; rating: VitalRating } | null {
  const merged = new Map<number, number>();
  let total = 0;
  for (const [stored, n] of histogram) {
    const bucket = stored < ZERO ? vitalBucket(metric, bucketValue(metric, stored)) : stored;
    merged.set(bucket, (merged.get(bucket) ?? 0) + n);
    total += n;
  }
  if (total <= 0) return null;
  const rank = Math.ceil(total * 0.75);
  let seen = 0;
  for (const bucket of [...merged.keys()].sort((a, b) => a - b)) {
    seen += merged.get(bucket)!;
    if (seen >= rank) return { value: bucketValue(metric, bucket), rating: bucketRating(metric, bucket) };
  }
  return null;
}

/** web.dev's rating of a value. */
export function vitalRating(metric: VitalName, value: number): VitalRating {
  const { good, poor } = vitalThresholds[metric];
  return value <= good ? 'good' : value > poor ? 'poor' : 'needs-improvement';
}
