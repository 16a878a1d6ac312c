import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import type { MaintenanceNow } from '../../protocol/reads.ts';
import type { ServiceGraph } from '../incidents/graph.ts';
import { all, int, mapper, text } from '../store/rows.ts';
import {
  type MaintenanceWindow,
  maintenanceAt,
  maintenanceBetween,
  maintenanceSpans,
  type Span,
} from '../windows/active.ts';
import { type Resolution, resolutions, type WindowTotals, windowStart, windowTotals } from './rollups.ts';
import { RAW_KEEP_MS } from './runs.ts';

/**
 * Runs inside maintenance windows, which uptime leaves out (docs/notifications.md "Uptime"). Counted
 * from the rollups: the buckets wholly inside a span, each at the coarsest resolution that fits and is
 * still kept; what is left at the edges (shorter than the bucket beside it) from the runs still stored
 * there: every run within the last 2 days, failures only before (up runs are not kept raw longer, so
 * those at the edges of an older window still count as up). Windows are few and each costs a handful
 * of queries, whatever the number of checks (DESIGN rule 3).
 */

export type RunCounts = { up: number; down: number; degraded: number };

type Part = { res: Resolution; lo: number; hi: number };

const coarseFirst = [...resolutions].reverse();

/** The rollup ranges wholly inside [from, to) and the pieces left for raw runs (see above). */
export function coverSpan(from: number, to: number, now: number, level = 0): { parts: Part[]; rest: Span[] } {
  if (from >= to) return { parts: [], rest: [] };
  const r = coarseFirst[level];
  if (!r) return { parts: [], rest: [{ from, to }] };
  // Buckets that start before now − keep may be pruned already.
  const lo = Math.max(Math.ceil(from / r.ms), Math.ceil((now - r.keepMs) / r.ms)) * r.ms;
  const hi = Math.floor(to / r.ms) * r.ms;
  if (lo >= hi) return coverSpan(from, to, now, level + 1);
  const left = coverSpan(from, lo, now, level + 1);
  const right = coverSpan(hi, to, now, level + 1);
  return {
    parts: [...left.parts, { res: r.res, lo, hi }, ...right.parts],
    rest: [...left.rest, ...right.rest],
  };
}

const countsRow = mapper({ checkId: text, up: int, down: int, degraded: int });

/** The runs of each check inside `spans` (disjoint), by check id; checks without any are absent. */
export function runsInside(
  db: DatabaseSync,
  checkIds: readonly string[],
  spans: readonly Span[],
  now: number,
): Map<string, RunCounts> {
  const out = new Map<string, RunCounts>();
  if (checkIds.length === 0) return out;
  const ids = JSON.stringify(checkIds);
  const add = (rows: (RunCounts & { checkId: string })[]) => {
    for (const { checkId, up, down, degraded } of rows) {
      const sum = out.get(checkId) ?? { up: 0, down: 0, degraded: 0 };
      sum.up += up;
      sum.down += down;
      sum.degraded += degraded;
      out.set(checkId, sum);
    }
  };
  for (const span of spans) {
    const { parts, rest } = coverSpan(span.from, span.to, now);
    for (const part of parts) {
      add(
        all(
          db,
          `SELECT check_id, sum(up) AS up, sum(down) AS down, sum(degraded) AS degraded FROM check_rollups
           WHERE check_id IN (SELECT value FROM json_each(?)) AND res = ? AND bucket >= ? AND bucket < ?
           GROUP BY check_id`,
          countsRow,
          ids,
          part.res,
          part.lo,
          part.hi,
        ),
      );
    }
    for (const edge of rest) {
      // Within the last 2 days every run is stored; before, only failures are (the partial index).
      const sql =
        edge.from >= now - RAW_KEEP_MS
          ? `SELECT check_id, sum(status = 'up') AS up, sum(status = 'down') AS down,
               sum(status = 'degraded') AS degraded FROM check_runs
             WHERE check_id IN (SELECT value FROM json_each(?)) AND ts >= ? AND ts < ? GROUP BY check_id`
          : `SELECT check_id, 0 AS up, sum(status = 'down') AS down, sum(status = 'degraded') AS degraded
             FROM check_runs
             WHERE check_id IN (SELECT value FROM json_each(?)) AND ts >= ? AND ts < ? AND status != 'up'
             GROUP BY check_id`;
      add(all(db, sql, countsRow, ids, edge.from, edge.to));
    }
  }
  return out;
}

/** `totals` without the runs `inside`. */
export function leaveOut<T extends RunCounts>(totals: T, inside: RunCounts | undefined): T {
  if (!inside) return totals;
  return {
    ...totals,
    up: totals.up - inside.up,
    down: totals.down - inside.down,
    degraded: totals.degraded - inside.degraded,
  };
}

/** The counts of all the checks together. */
export function sumCounts(byCheck: Map<string, RunCounts>): RunCounts {
  const sum = { up: 0, down: 0, degraded: 0 };
  for (const c of byCheck.values()) {
    sum.up += c.up;
    sum.down += c.down;
    sum.degraded += c.degraded;
  }
  return sum;
}

/**
 * Run counts of the checks over the uptime window [from, now] (see windowParts), without the runs
 * inside `held` (their service's maintenance times).
 */
export function withoutMaintenance(
  db: DatabaseSync,
  checkIds: readonly string[],
  from: number,
  now: number,
  held: readonly Span[],
): WindowTotals {
  const totals = windowTotals(db, [...checkIds], from, now);
  const start = windowStart(from, now);
  const spans = held
    .map((s) => ({ from: Math.max(s.from, start), to: Math.min(s.to, now) }))
    .filter((s) => s.from < s.to);
  return spans.length === 0 ? totals : leaveOut(totals, sumCounts(runsInside(db, checkIds, spans, now)));
}

/** How far back uptime looks: the year window and a day to spare. */
const LOOKBACK_MS = 366 * DAY;

/** The maintenance windows uptime and the service reads may need: the last year's and those in force. */
export function recentMaintenance(db: DatabaseSync, now: number): MaintenanceWindow[] {
  return maintenanceBetween(db, now - LOOKBACK_MS, now + 1);
}

/** A service's maintenance: its merged times over the last year, and the window holding it now. */
export type Held = { spans: Span[]; now: MaintenanceNow | null };

export function heldService(
  windows: readonly MaintenanceWindow[],
  graph: ServiceGraph,
  name: string,
  now: number,
): Held {
  const scope = { services: [name], hosts: graph.hostsOf(name) };
  return {
    spans: maintenanceSpans(windows, scope, now - LOOKBACK_MS, now),
    now: maintenanceAt(windows, scope, now),
  };
}
