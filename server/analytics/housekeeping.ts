import type { Deps } from '../deps.ts';
import type { VisitorIds } from './visitors.ts';

/**
 * Hourly: deletes raw analytics data (sessions, page views, hourly rollups) older than
 * RAW_RETENTION_MS and salts older than 48 hours. Daily rollups and error groups stay.
 */
export function createAnalyticsHousekeeping(
  deps: Deps,
  visitors: VisitorIds,
): { start(): void; stop(): void } {
  void deps;
  void visitors;
  // Stand-in until built.
  return { start() {}, stop() {} };
}
