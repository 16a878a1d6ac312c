import type { DatabaseSync } from 'node:sqlite';
import type { AnalyticsList, VitalName } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../checks/rollups.ts';
import { statement } from '../store/statements.ts';

/**
 * The rollups of a batch of tracker events, added up in memory by hour bucket first, then written with
 * one upsert per distinct row: the hour's (`res = 'h'`) and its UTC day's (`res = 'd'`). A batch of
 * 2,000 events thus writes a few hundred rows, not one per event and list.
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
const upsertDim = `
INSERT INTO analytics_dims (site, res, at, list, value, visitors, views) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site, res, at, list, value) DO UPDATE SET visitors = visitors + excluded.visitors, views = views + excluded.views`;
const upsertVital = `
INSERT INTO analytics_vitals (site, res, at, page, metric, bucket, n) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (site, res, at, page, metric, bucket) DO UPDATE SET n = n + excluded.n`;

/** Adds `from` into the day row of `into` (keyed like the hour rows, with the day's start). */
function intoDay<R extends { site: string; at: number }>(
  into: Map<string, R>,
  row: R,
  key: (row: R) => string,
  add: (to: R, from: R) => void,
): void {
  const day = { ...row, at: dayOf(row.at) };
  const k = key(day);
  const known = into.get(k);
  if (known) add(known, row);
  else into.set(k, day);
}

const totalsKey = (r: Totals) => `${r.site}\0${r.at}`;
const dimKey = (r: Dim) => `${r.site}\0${r.at}\0${r.list}\0${r.value}`;
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
const addVital = (to: Vital, from: Vital) => {
  to.n += from.n;
};

export class BatchRollups {
  private readonly totals = new Map<string, Totals>();
  private readonly dims = new Map<string, Dim>();
  private readonly vitals = new Map<string, Vital>();

  /** Adds to the totals of the hour of `ts`. */
  total(site: string, ts: number, delta: TotalsDelta): void {
    const at = hourOf(ts);
    const key = `${site}\0${at}`;
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
    const key = `${site}\0${at}\0${list}\0${value}`;
    const row = this.dims.get(key);
    if (row) {
      row.visitors += visitors;
      row.views += views;
    } else this.dims.set(key, { site, at, list, value, visitors, views });
  }

  /** Adds `n` (−1 to take back a report) to a Web Vitals histogram bucket in the hour of `ts`. */
  vital(site: string, ts: number, page: string, metric: VitalName, bucket: number, n: number): void {
    const at = hourOf(ts);
    const key = `${site}\0${at}\0${page}\0${metric}\0${bucket}`;
    const row = this.vitals.get(key);
    if (row) row.n += n;
    else this.vitals.set(key, { site, at, page, metric, bucket, n });
  }

  /** Writes the hour rows and their days' rows; rows that add nothing are skipped. */
  write(db: DatabaseSync): void {
    const totalsStmt = statement(db, upsertTotals);
    const days = new Map<string, Totals>();
    for (const row of this.totals.values()) {
      intoDay(days, row, totalsKey, addTotals);
      writeTotals(totalsStmt, 'h', row);
    }
    for (const row of days.values()) writeTotals(totalsStmt, 'd', row);

    const dimStmt = statement(db, upsertDim);
    const dimDays = new Map<string, Dim>();
    for (const row of this.dims.values()) {
      intoDay(dimDays, row, dimKey, addDim);
      if (row.visitors !== 0 || row.views !== 0)
        dimStmt.run(row.site, 'h', row.at, row.list, row.value, row.visitors, row.views);
    }
    for (const row of dimDays.values()) {
      if (row.visitors !== 0 || row.views !== 0)
        dimStmt.run(row.site, 'd', row.at, row.list, row.value, row.visitors, row.views);
    }

    const vitalStmt = statement(db, upsertVital);
    const vitalDays = new Map<string, Vital>();
    for (const row of this.vitals.values()) {
      intoDay(vitalDays, row, vitalKey, addVital);
      if (row.n !== 0) vitalStmt.run(row.site, 'h', row.at, row.page, row.metric, row.bucket, row.n);
    }
    for (const row of vitalDays.values()) {
      if (row.n !== 0) vitalStmt.run(row.site, 'd', row.at, row.page, row.metric, row.bucket, row.n);
    }
  }
}

function writeTotals(stmt: ReturnType<typeof statement>, res: 'h' | 'd', r: Totals): void {
  if (r.visitors === 0 && r.views === 0 && r.visits === 0 && r.bounces === 0 && r.engagedMs === 0) return;
  stmt.run(r.site, res, r.at, r.visitors, r.views, r.visits, r.bounces, r.engagedMs);
}
