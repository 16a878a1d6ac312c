import type { DatabaseSync } from 'node:sqlite';
import type { IncidentVisitors } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../checks/rollups.ts';
import { all, int, mapper } from '../store/rows.ts';
import { hourlyKeptFrom } from './retention.ts';

const pointRow = mapper({ at: int, visitors: int });

/**
 * The visitors of `site` from `from` to `to` from the rollups, for the incident read: hourly points
 * while hourly rollups are kept for the whole span, else daily ones, and `during`, the visitors of the
 * buckets that overlap the incident's span `[start, end)`. A visitor is counted in the bucket of their
 * first event of the (UTC) day, so a bucket's visitors are those new that day. One query; as many rows
 * as points.
 */
export function visitorsAround(
  db: DatabaseSync,
  site: string,
  span: { from: number; to: number; start: number; end: number; now: number },
): IncidentVisitors {
  const hourlyFrom = hourlyKeptFrom(span.now);
  const stepMs = span.from >= hourlyFrom ? HOUR : DAY;
  const first = Math.floor(span.from / stepMs) * stepMs;
  const counts = new Map(
    all(
      db,
      'SELECT at, visitors FROM analytics_totals WHERE site = ? AND res = ? AND at >= ? AND at < ?',
      pointRow,
      site,
      stepMs === HOUR ? 'h' : 'd',
      first,
      span.to,
    ).map((r) => [r.at, r.visitors]),
  );
  const x: number[] = [];
  for (let at = first; at < span.to; at += stepMs) x.push(at);
  const visitors = x.map((at) => counts.get(at) ?? 0);
  // An incident that resolved at once still has the bucket it started in.
  const duringEnd = Math.max(span.end, span.start + 1);
  const during = x.reduce(
    (sum, at, i) => (at + stepMs > span.start && at < duringEnd ? sum + visitors[i]! : sum),
    0,
  );
  return { site, x, stepMs, visitors, during };
}
