import { DAY, HOUR } from '../../protocol/durations.ts';
import { hourlyKeptFrom } from './retention.ts';

/** Spans up to this long read hour buckets; longer ones read UTC days. */
export const HOURLY_SPAN_MS = 48 * HOUR;

export type Resolution = 'h' | 'd';

/**
 * The rollup buckets a read sums: the whole hours or UTC days the asked range touches, so every
 * point of the chart is one bucket and the series reads one row per bucket (DESIGN rule 4); lists,
 * Web Vitals and error counts read the same hours, or the same days in blocks (pieces.ts). `from` is
 * the first bucket's start; `to` the asked end, or the last bucket's end when it is already past (the
 * sums hold that bucket's whole data).
 */
export type ReadSpan = {
  res: Resolution;
  stepMs: number;
  from: number;
  to: number;
  /** Bucket starts, oldest first. */
  buckets: number[];
};

/**
 * The buckets of the range [from, to): hours when it spans at most 48 hours and its hours are still
 * kept, UTC days otherwise. Days hold every metric the read answers (totals, every list, Web Vitals
 * overall and per page, error counts), so reaching back beyond raw retention coarsens the points and
 * widens a short span to its whole days, but leaves nothing out.
 */
export function readSpan(from: number, to: number, now: number): ReadSpan {
  const hourly = to - from <= HOURLY_SPAN_MS && Math.floor(from / HOUR) * HOUR >= hourlyKeptFrom(now);
  const stepMs = hourly ? HOUR : DAY;
  const start = Math.floor(from / stepMs) * stepMs;
  const buckets: number[] = [];
  for (let at = start; at < to; at += stepMs) buckets.push(at);
  const end = start + buckets.length * stepMs;
  return { res: hourly ? 'h' : 'd', stepMs, from: start, to: Math.max(to, Math.min(end, now)), buckets };
}

/**
 * The same number of buckets just before `span.from`, at the same resolution, so the comparison is
 * like for like (25 hours before a 24-hour span that touches 25). Null when an hourly span's previous
 * hours are no longer kept: a comparison with whole days would not be like for like, so the read
 * leaves it out.
 */
export function previousSpan(span: ReadSpan, now: number): ReadSpan | null {
  const from = span.from - span.buckets.length * span.stepMs;
  if (span.res === 'h' && from < hourlyKeptFrom(now)) return null;
  const buckets = span.buckets.map((_, i) => from + i * span.stepMs);
  return { res: span.res, stepMs: span.stepMs, from, to: span.from, buckets };
}
