import type { DatabaseSync } from 'node:sqlite';
import { type VitalName, vitalNames } from '../../protocol/analytics.ts';
import { HOUR } from '../../protocol/durations.ts';
import { exists, int, json, mapper, nullable, one } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { type BatchRollups, hourOf } from './rollups.ts';
import { vitalBucket } from './vitals.ts';

/**
 * Raw page views (`analytics_views`): whether a visitor has seen a page already (pages count a
 * visitor once a day: a visitor id lasts a day), and the Web Vitals each view last reported.
 */

/** Whether the visitor has viewed this page before (today: ids change daily). */
export function hasViewed(db: DatabaseSync, site: string, visitor: string, page: string): boolean {
  return exists(
    db,
    'SELECT 1 FROM analytics_views WHERE site = ? AND visitor = ? AND page = ? LIMIT 1',
    site,
    visitor,
    page,
  );
}

/** Milliseconds a view tries for a free one: beyond, the job throws and the writer rolls it back. */
export const VIEW_TRIES = 1_000;

/**
 * Stores a page view at `ts`, or at the nearest millisecond free for this visitor and page: people
 * behind one address with the same browser are one visitor, and two of them may open a page in the
 * same millisecond. Every view answered is stored and counted (the tracker itself sends one view per
 * path). The next ones up to the end of the hour are tried, then the ones before `ts`: a view stays in
 * the hour it is counted in, where its Web Vitals are counted too (countVitals). Only a key taken is
 * passed over; any other failure throws.
 */
export function insertView(db: DatabaseSync, site: string, visitor: string, page: string, ts: number): void {
  const insert = statement(
    db,
    `INSERT INTO analytics_views (site, visitor, page, ts) VALUES (?, ?, ?, ?)
     ON CONFLICT (site, visitor, page, ts) DO NOTHING`,
  );
  const up = hourOf(ts) + HOUR - ts;
  for (let i = 0; i < VIEW_TRIES; i++) {
    const at = i < up ? ts + i : ts - (i - up + 1);
    if (insert.run(site, visitor, page, at).changes > 0) return;
  }
  throw new Error(`no free millisecond for a view of ${page} within ${VIEW_TRIES} of ${ts}`);
}

/** Metric → histogram bucket, as stored in `analytics_views.vitals`. */
type Buckets = Partial<Record<VitalName, number>>;

const viewRow = mapper({ ts: int, vitals: nullable(json<Buckets>()) });

/**
 * Counts a Web Vitals report of a page in the histograms of every page (`''`) and of the page
 * (retention.ts). The tracker reports a view's vitals once per page load; should a
 * second report of the same view arrive (an older tracker, a resend), it replaces the earlier one:
 * its buckets are taken back and the new ones added, at the time of the view. A report whose view is not found (it came
 * under yesterday's visitor id, in a visit no longer going) is counted at its own time.
 */
export function countVitals(
  db: DatabaseSync,
  rollups: BatchRollups,
  report: {
    site: string;
    visitor: string;
    page: string;
    ts: number;
    vitals: Partial<Record<VitalName, number>>;
  },
): void {
  const buckets: Buckets = {};
  let any = false;
  for (const metric of vitalNames) {
    const value = report.vitals[metric];
    if (value === undefined) continue;
    buckets[metric] = vitalBucket(metric, value);
    any = true;
  }
  if (!any) return;
  const view = one(
    db,
    'SELECT ts, vitals FROM analytics_views WHERE site = ? AND visitor = ? AND page = ? ORDER BY ts DESC LIMIT 1',
    viewRow,
    report.site,
    report.visitor,
    report.page,
  );
  const at = view?.ts ?? report.ts;
  const add = (b: Buckets, n: number) => {
    for (const metric of vitalNames) {
      const bucket = b[metric];
      if (bucket === undefined) continue;
      rollups.vital(report.site, at, report.page, metric, bucket, n);
    }
  };
  if (view?.vitals) add(view.vitals, -1);
  add(buckets, 1);
  if (view) {
    const sql =
      'UPDATE analytics_views SET vitals = ? WHERE site = ? AND visitor = ? AND page = ? AND ts = ?';
    statement(db, sql).run(JSON.stringify(buckets), report.site, report.visitor, report.page, view.ts);
  }
}
