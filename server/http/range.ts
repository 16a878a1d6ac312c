import { DAY, HOUR } from '../../protocol/durations.ts';
import { invalid } from '../problem.ts';

/** The named ranges of reads (SPEC "Endpoints") and the longest span `from`+`to` may cover. */
const ranges: Record<string, number> = {
  '1h': HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
  '30d': 30 * DAY,
  '1y': 365 * DAY,
};
const MAX_SPAN = 400 * DAY;

/**
 * `range` or `from`+`to` of a read (SPEC "Endpoints"), `fallback` when neither is given; 422 naming the
 * field otherwise.
 */
export function parseRange(
  query: Record<string, string | undefined>,
  now: number,
  fallback = '24h',
): { from: number; to: number } {
  const { range, from, to } = query;
  if (range !== undefined && (from !== undefined || to !== undefined)) {
    throw invalid('range', 'give range or from and to, not both');
  }
  if (from === undefined && to === undefined) {
    const name = range ?? fallback;
    const span = Object.hasOwn(ranges, name) ? ranges[name as keyof typeof ranges] : undefined;
    if (span === undefined) throw invalid('range', 'must be one of 1h, 24h, 7d, 30d, 1y');
    return { from: now - span, to: now };
  }
  const f = parseMs(from, 'from');
  const t = parseMs(to, 'to');
  if (t <= f) throw invalid('to', 'must be after from');
  if (t - f > MAX_SPAN) throw invalid('from', 'the span may be at most 400 days');
  return { from: f, to: t };
}

export function parseMs(value: string | undefined, field: string): number {
  if (value === undefined || !/^\d{1,15}$/.test(value))
    throw invalid(field, 'must be a time in milliseconds');
  return Number(value);
}
