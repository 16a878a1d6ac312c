import type { DatabaseSync } from 'node:sqlite';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import type { RunStatus } from '../../protocol/reads.ts';
import { type Histogram, mergeBins, quantile, type Resolution, resolutions } from '../checks/rollups.ts';
import { all, int, json, mapper, text } from '../store/rows.ts';

/**
 * The overview's reads of check rollups: every check at once, one query per kind of data (strips,
 * latency), never one per check. Times are UTC, as the rollups' buckets.
 */

/** Slot lengths a strip may take, shortest first; each is a whole number of some rollup's buckets. */
const stripSteps = [
  MINUTE,
  2 * MINUTE,
  5 * MINUTE,
  10 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  3 * HOUR,
  4 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  4 * DAY,
  7 * DAY,
  14 * DAY,
];
export const MIN_SLOTS = 24;
export const MAX_SLOTS = 90;

export type StripPlan = { start: number; stepMs: number; slots: number; res: Resolution };

/**
 * The slots of the strips over [from, to): 24 to 90 of them (fewer only for a span under 24 minutes),
 * each read from the coarsest rollup that fits the slot and is still kept at its start; of those, the
 * plan reading the fewest rollup rows, then the shortest slot. 1h: 60 one-minute slots; 24h: 24 hours;
 * 7d: 84 of 2 h; 30d: 30 days; 1y: 53 weeks.
 */
export function planStrip(from: number, to: number, now: number): StripPlan {
  const plans = stripSteps.flatMap((stepMs) => {
    // The first slot starts at or after `from`: no run before the range counts (as in uptime windows).
    const start = Math.ceil(from / stepMs) * stepMs;
    const slots = Math.ceil(to / stepMs) - start / stepMs;
    // The coarsest rollup whose buckets divide the slot and are still kept at its start.
    const kept = resolutions.filter((r) => stepMs % r.ms === 0 && start >= now - r.keepMs).at(-1);
    return kept ? [{ start, stepMs, slots, res: kept.res, rows: (to - from) / kept.ms }] : [];
  });
  const fitting = plans.filter((p) => p.slots >= MIN_SLOTS && p.slots <= MAX_SLOTS);
  const best = fitting.sort((a, b) => a.rows - b.rows || a.stepMs - b.stepMs)[0] ??
    plans.find((p) => p.slots <= MAX_SLOTS) ??
    plans.at(-1) ?? { start: Math.ceil(from / DAY) * DAY, stepMs: DAY, slots: 0, res: 'd' as const };
  return { start: best.start, stepMs: best.stepMs, slots: best.slots, res: best.res };
}

/** A run status as a strip code: worse is higher; 0 is a slot without runs. */
const codes: (RunStatus | null)[] = [null, 'up', 'degraded', 'down'];

const stripRow = mapper({ checkId: text, up: int, down: int, degraded: int, slots: text });

export type CheckStrip = { strip: (RunStatus | null)[]; up: number; down: number; degraded: number };

/**
 * Every check's strip, and its run counts over the slots (for uptime), by check id. Each check is one
 * row: its rollup buckets in order as two characters each (slot, worst status code), so that the work
 * of grouping stays in SQLite and no row per bucket reaches JavaScript.
 */
export function readStrips(db: DatabaseSync, plan: StripPlan): Map<string, CheckStrip> {
  const rows = all(
    db,
    `SELECT check_id, sum(up) AS up, sum(down) AS down, sum(degraded) AS degraded,
       group_concat(char(48 + (bucket - CAST(?1 AS INTEGER)) / CAST(?2 AS INTEGER),
         CASE WHEN down > 0 THEN 51 WHEN degraded > 0 THEN 50 ELSE 49 END), '') AS slots
     FROM check_rollups
     WHERE check_id IN (SELECT id FROM checks) AND res = ?3 AND bucket >= ?1 AND bucket < ?4
     GROUP BY check_id`,
    stripRow,
    plan.start,
    plan.stepMs,
    plan.res,
    plan.start + plan.slots * plan.stepMs,
  );
  const out = new Map<string, CheckStrip>();
  for (const row of rows) {
    const worst = new Uint8Array(plan.slots);
    for (let k = 0; k < row.slots.length; k += 2) {
      const slot = row.slots.charCodeAt(k) - 48;
      const code = row.slots.charCodeAt(k + 1) - 48;
      if (code > worst[slot]!) worst[slot] = code;
    }
    out.set(row.checkId, {
      strip: Array.from(worst, (code) => codes[code]!),
      up: row.up,
      down: row.down,
      degraded: row.degraded,
    });
  }
  return out;
}

/** Latency buckets read for the median: at most this many per check. */
const MAX_LATENCY_BUCKETS = 60;

const histsRow = mapper({ checkId: text, hists: json<Record<string, number>[]>() });

/**
 * Every check's median response time over [from, to), by check id: the latency histograms of the
 * finest rollup giving at most 60 buckets over the range (24h: hours; 30d: days) that is still kept,
 * gathered into one JSON array per check (the stored text, joined without parsing it in SQLite).
 */
export function readMedians(db: DatabaseSync, from: number, to: number, now: number): Map<string, number> {
  const fits = resolutions.filter(
    (r) => Math.ceil(to / r.ms) - Math.ceil(from / r.ms) <= MAX_LATENCY_BUCKETS && from >= now - r.keepMs,
  );
  const { res, ms } = fits[0] ?? resolutions.at(-1)!;
  const rows = all(
    db,
    `SELECT check_id, '[' || group_concat(hist) || ']' AS hists FROM check_rollups
     WHERE check_id IN (SELECT id FROM checks) AND res = ? AND bucket >= ? AND bucket < ? AND lat_count > 0
     GROUP BY check_id`,
    histsRow,
    res,
    // No bucket starts before `from`, as in the strips.
    Math.ceil(from / ms) * ms,
    to,
  );
  const out = new Map<string, number>();
  for (const row of rows) {
    const hist: Histogram = new Map();
    for (const bins of row.hists) mergeBins(hist, bins);
    const p50 = quantile(hist, 0.5);
    if (p50 !== null) out.set(row.checkId, p50);
  }
  return out;
}
