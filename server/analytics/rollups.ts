import type { DatabaseSync } from 'node:sqlite';
import type { AnalyticsList, VitalName } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { statement } from '../store/statements.ts';
import { CappedListRows } from './value-caps.ts';

/**
 * The rollups of a batch of tracker events, added up in memory by hour bucket first, then written with
 * one upsert per distinct row: the hour's (`res = 'h'`) and its UTC day's (`res = 'd'`). A batch of
 * 2,000 events thus writes a few hundred rows, not one per event and list. Web Vitals of single pages
 * have day rows only (retention.ts). A list keeps a bounded number of values an hour and a day
 * (value-caps.ts).
 */

export const hourOf = (ts: number) => Math.floor(ts / HOUR) * HOUR;
export const dayOf = (ts: number) => Math.floor(ts / DAY) * DAY;

/** What one event adds to the totals of its bucket (negative `bounces` when a visit stops bouncing). */
export type TotalsDelta = {
  visitors?: number;
  views?: number;
  visits?: number;
  bounces?: number;
  engagedMs?: number;
};

type Totals = {
  site: string;
  at: number;
  visitors: number;
  views: number;
  visits: number;
  bounces: number;
  engagedMs: number;
};
type Dim = { site: string; at: number; list: AnalyticsList; value: string; visitors: number; views: number };
type Vital = { site: string; at: number; page: string; metric: VitalName; bucket: number; n: number };

const upsertTotals = `
INSERT INTO analytics_totals (site, res, at, visitors, views, visits, bounces, engaged_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site, res, at) DO UPDATE SET visitors = visitors + excluded.visitors, views = views + excluded.views,
  visits = visits + excluded.visits, bounces = bounces + excluded.bounces, engaged_ms = engaged_ms + excluded.engaged_ms`;
const upsertVital = `
INSERT INTO analytics_vitals (site, res, at, page, metric, bucket, n) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site, res, at, page, metric, bucket) DO UPDATE SET n = n + excluded.n`;

/**
 * Writes hour rows, then the day rows they add up to (a batch may straddle midnight). `write` skips
 * rows that add nothing.
 */
function writeHoursAndDays<R extends { site: string; at: number }>(
  hours: Iterable<R>,
  key: (row: R) => string,
  add: (to: R, from: R) => void,
  write: (res: 'h' | 'd', row: R) => void,
): void {
  const days = new Map<string, R>();
  for (const row of hours) {
    write('h', row);
    const day = { ...row, at: dayOf(row.at) };
    const k = key(day);
    const known = days.get(k);
    if (known) add(known, row);
    else days.set(k, day);
  }
  for (const row of days.values()) write('d', row);
}

const totalsKey = (r: { site: string; at: number }) => `${r.site}\0${r.at}`;
const dimKey = (r: { site: string; at: number; list: string; value: string }) =>
  `${r.site}\0${r.at}\0${r.list}\0${r.value}`;
const vitalKey = (r: Vital) => `${r.site}\0${r.at}\0${r.page}\0${r.metric}\0${r.bucket}`;

const addTotals = (to: Totals, from: TotalsDelta) => {
  to.visitors += from.visitors ?? 0;
  to.views += from.views ?? 0;
  to.visits += from.visits ?? 0;
  to.bounces += from.bounces ?? 0;
  to.engagedMs += from.engagedMs ?? 0;
};
const addDim = (to: Dim, from: Dim) => {
  to.visitors += from.visitors;
  to.views += from.views;
};

export class BatchRollups {
  private readonly totals = new Map<string, Totals>();
  private readonly dims = new Map<string, Dim>();
  /** Histograms of every page (`page = ''`) by hour. */
  private readonly vitalHours = new Map<string, Vital>();
  /** Histograms per page by day: hours of every page of a site would be too many rows. */
  private readonly pageVitalDays = new Map<string, Vital>();

  /** Adds to the totals of the hour of `ts`. */
  total(site: string, ts: number, delta: TotalsDelta): void {
    const at = hourOf(ts);
    const key = totalsKey({ site, at });
    let row = this.totals.get(key);
    if (!row) {
      row = { site, at, visitors: 0, views: 0, visits: 0, bounces: 0, engagedMs: 0 };
      this.totals.set(key, row);
    }
    addTotals(row, delta);
  }

  /** Adds visitors and views to a value of a list in the hour of `ts`. */
  dim(site: string, ts: number, list: AnalyticsList, value: string, visitors: number, views: number): void {
    const at = hourOf(ts);
    const key = dimKey({ site, at, list, value });
    const row = this.dims.get(key);
    if (row) {
      row.visitors += visitors;
      row.views += views;
    } else this.dims.set(key, { site, at, list, value, visitors, views });
  }

  /**
   * Adds `n` (−1 takes a report back) to a Web Vitals bucket of every page, in the hour of `ts` (and
   * its day), and to the page's, in the day of `ts`.
   */
  vital(site: string, ts: number, page: string, metric: VitalName, bucket: number, n: number): void {
    addVital(this.vitalHours, { site, at: hourOf(ts), page: '', metric, bucket, n });
    addVital(this.pageVitalDays, { site, at: dayOf(ts), page, metric, bucket, n });
  }

  /** Writes the hour rows and their days' rows; rows that add nothing are skipped. */
  write(db: DatabaseSync): void {
    const totals = statement(db, upsertTotals);
    writeHoursAndDays(this.totals.values(), totalsKey, addTotals, (res, r) => {
      if (r.visitors === 0 && r.views === 0 && r.visits === 0 && r.bounces === 0 && r.engagedMs === 0) return;
      totals.run(r.site, res, r.at, r.visitors, r.views, r.visits, r.bounces, r.engagedMs);
    });
    const dims = new CappedListRows(db);
    writeHoursAndDays(this.dims.values(), dimKey, addDim, (res, r) => {
      if (r.visitors !== 0 || r.views !== 0) dims.write(res, r);
    });
    dims.finish();
    const vitals = statement(db, upsertVital);
    const writeVital = (res: 'h' | 'd', r: Vital) => {
      if (r.n !== 0) vitals.run(r.site, res, r.at, r.page, r.metric, r.bucket, r.n);
    };
    writeHoursAndDays(this.vitalHours.values(), vitalKey, (to, from) => (to.n += from.n), writeVital);
    for (const row of this.pageVitalDays.values()) writeVital('d', row);
  }
}

function addVital(into: Map<string, Vital>, row: Vital): void {
  const key = vitalKey(row);
  const known = into.get(key);
  if (known) known.n += row.n;
  else into.set(key, row);
}
