import type { DatabaseSync } from 'node:sqlite';
import type { AnalyticsSeries, AnalyticsTotals } from '../../protocol/analytics.ts';
import { round } from '../checks/rollups.ts';
import { all, int, mapper } from '../store/rows.ts';
import type { ReadSpan } from './ranges.ts';

const bucketRow = mapper({
  at: int,
  visitors: int,
  views: int,
  visits: int,
  bounces: int,
  engagedMs: int,
});
type Bucket = { visitors: number; views: number; visits: number; bounces: number; engagedMs: number };

const emptyBucket = (): Bucket => ({ visitors: 0, views: 0, visits: 0, bounces: 0, engagedMs: 0 });

/** One row per bucket of the span (the rollups' primary key), none for buckets without data. */
function bucketsOf(db: DatabaseSync, site: string | null, span: ReadSpan): Map<number, Bucket> {
  const byStart = new Map<number, Bucket>();
  if (site === null || span.buckets.length === 0) return byStart;
  const rows = all(
    db,
    `SELECT at, visitors, views, visits, bounces, engaged_ms FROM analytics_totals
     WHERE site = ? AND res = ? AND at >= ? AND at <= ?`,
    bucketRow,
    site,
    span.res,
    span.buckets[0]!,
    span.buckets.at(-1)!,
  );
  for (const { at, ...bucket } of rows) byStart.set(at, bucket);
  return byStart;
}

/** Bounce percent (one decimal) and mean time of a visit (ms): null without visits. */
function ratios(b: Bucket): { bounce: number | null; time: number | null } {
  if (b.visits === 0) return { bounce: null, time: null };
  return { bounce: round((100 * b.bounces) / b.visits, 1), time: Math.round(b.engagedMs / b.visits) };
}

function totalsOf(buckets: Iterable<Bucket>): AnalyticsTotals {
  const sum = emptyBucket();
  for (const b of buckets) {
    sum.visitors += b.visitors;
    sum.views += b.views;
    sum.visits += b.visits;
    sum.bounces += b.bounces;
    sum.engagedMs += b.engagedMs;
  }
  return { visitors: sum.visitors, views: sum.views, visits: sum.visits, ...ratios(sum) };
}

/** No visitor, no view: the totals of a site without data, or of a period left out. */
export const noTotals = (): AnalyticsTotals => totalsOf([]);

/**
 * Visitors (visitor-days: mon's visitor ids change daily), views, visits, bounce and time over the
 * span, and the same per bucket, zero-filled.
 */
export function readTraffic(
  db: DatabaseSync,
  site: string | null,
  span: ReadSpan,
): { totals: AnalyticsTotals; series: AnalyticsSeries } {
  const byStart = bucketsOf(db, site, span);
  const points = span.buckets.map((at) => byStart.get(at) ?? emptyBucket());
  const pointRatios = points.map(ratios);
  return {
    totals: totalsOf(points),
    series: {
      x: span.buckets,
      stepMs: span.stepMs,
      visitors: points.map((p) => p.visitors),
      views: points.map((p) => p.views),
      bounce: pointRatios.map((r) => r.bounce),
      time: pointRatios.map((r) => r.time),
    },
  };
}

/** The totals of a span alone (the previous period). */
export function readTotals(db: DatabaseSync, site: string | null, span: ReadSpan): AnalyticsTotals {
  return totalsOf(bucketsOf(db, site, span).values());
}
