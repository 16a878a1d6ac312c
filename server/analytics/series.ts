import type { DatabaseSync } from 'node:sqlite';
import type { IncidentVisitors } from '../../protocol/analytics.ts';

/**
 * The visitors of `site` from `from` to `to` from the rollups (hourly within raw retention, daily
 * beyond), for the incident read: points and the visitors of the span `[start, end)`.
 */
export function visitorsAround(
  db: DatabaseSync,
  site: string,
  span: { from: number; to: number; start: number; end: number },
): IncidentVisitors {
  void db;
  void site;
  void span;
  throw new Error('visitor series: to be built');
}
