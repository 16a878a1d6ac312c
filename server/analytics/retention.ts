import { DAY, HOUR } from '../../protocol/durations.ts';

/**
 * What analytics keeps, and for how long (docs/analytics.md "What is kept, and for how long"):
 *
 * - raw data (`analytics_sessions`, `analytics_views`) and hourly rollups (`res = 'h'` rows of
 *   `analytics_totals`, `analytics_dims`, `analytics_vitals`, `js_error_counts`): RAW_RETENTION_MS;
 *   a visitor's page views of a day go with its first visit of that day (housekeeping.ts): deleting
 *   each with its own visit cost 15 to 35% more CPU for views nothing reads after their day;
 * - Web Vitals of single pages (`analytics_vitals` rows with a `page`): day rows only, for
 *   RAW_RETENTION_MS. A histogram per page, metric and bucket is much of the writer's work for a
 *   tracker event: by the hour or for good it would be too much. Web Vitals of every page
 *   (`page = ''`) have hour and day rows like the others;
 * - error groups (`js_error_groups`) with their daily counts: until not seen for RAW_RETENTION_MS, so
 *   that made-up messages cannot add groups for good (error-groups.ts also caps new groups a day);
 * - daily rollups (`res = 'd'` rows of the others): for good, and so are the blocks of days made of
 *   them (`res` '2d' to '256d' rows, `analytics_dim_blocks`, `analytics_blocks_written`;
 *   block-writes.ts), but for an error group's block counts, which go with the group (and are
 *   written for blocks of up to 32 days: errors are read over 35 days at most, errorGroupsKeptFrom).
 *
 * 35 days: a 30-day range still has its hours (and a few days of slack for time zones and late reads);
 * beyond, reads have days only. Housekeeping deletes hourly, so rows slightly older may linger.
 */
export const RAW_RETENTION_MS = 35 * DAY;

/**
 * The first hour bucket surely still kept at `now`: housekeeping deletes buckets that began more than
 * RAW_RETENTION_MS before its run, never later ones. A range from here on is covered by hourly rows.
 */
export function hourlyKeptFrom(now: number): number {
  return Math.ceil((now - RAW_RETENTION_MS) / HOUR) * HOUR;
}

/** The first day of single pages' Web Vitals surely still kept at `now` (day rows of a page, retention.ts). */
export function pageVitalsKeptFrom(now: number): number {
  return Math.ceil((now - RAW_RETENTION_MS) / DAY) * DAY;
}

/**
 * The earliest start of a range whose error groups are all still kept at `now`: housekeeping deletes a
 * group (and its counts) only once it was not seen for RAW_RETENTION_MS before its run.
 */
export function errorGroupsKeptFrom(now: number): number {
  return now - RAW_RETENTION_MS;
}
