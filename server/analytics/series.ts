import type { DatabaseSync } from 'node:sqlite';
import type { IncidentVisitors } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { all, int, mapper, one } from '../store/rows.ts';
import { hourlyKeptFrom, RAW_RETENTION_MS } from './retention.ts';

const pointRow = mapper({ at: int, visitors: int });
const countRow = mapper({ visitors: int });

/**
 * The distinct visitors with a visit overlapping `[start, end)`, from the raw visits. A visit never
 * crosses midnight UTC (the visitor id changes there), so one overlapping `start` began that day: the
 * index by start bounds the scan to the visits begun from that midnight to `end`. Null when that day's
 * visits may have been pruned already.
 */
function visitorsOfVisits(db: DatabaseSync, site: string, start: number, end: number, now: number) {
  const startDay = Math.floor(start / DAY) * DAY;
  if (startDay < now - RAW_RETENTION_MS) return null;
  return one(
    db,
    `SELECT count(DISTINCT visitor) AS visitors FROM analytics_sessions
     WHERE started_at >= ? AND started_at < ? AND last_at >= ? AND site = ?`,
    countRow,
    startDay,
    end,
    start,
    site,
  )!.visitors;
}

/**
 * The visitors of `site` from `from` to `to`, for the incident read. Points come from the rollups:
 * hourly while hourly rollups are kept for the whole span, else daily; a point counts the visitors
 * whose first event of the (UTC) day fell in its bucket (the rollups count a visitor once a day), so
 * it shows arrivals, not everyone present. `during`, the visitors of the incident's span
 * `[start, end)`, counts everyone with a visit overlapping it, from the raw visits; beyond their
 * retention, the sum of the points the span overlaps (arrivals only). Two queries.
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
  const during =
    visitorsOfVisits(db, site, span.start, duringEnd, span.now) ??
    x.reduce((sum, at, i) => (at + stepMs > span.start && at < duringEnd ? sum + visitors[i]! : sum), 0);
  return { site, x, stepMs, visitors, during };
}
