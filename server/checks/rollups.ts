import type { DatabaseSync } from 'node:sqlite';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import type { Series } from '../../protocol/reads.ts';
import { deleting, type PrunePart } from '../store/pruning.ts';
import { all, int, mapper, nullable, one, real, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * Rollups of check runs (DESIGN rule 3): per check and bucket, run counts by status, latency sum and a
 * mergeable latency histogram, and the sum of command values. Long ranges read these, never raw runs.
 */
export type Resolution = 'm' | 't' | 'h' | 'd';
export const resolutions: { res: Resolution; ms: number; keepMs: number }[] = [
  { res: 'm', ms: MINUTE, keepMs: 2 * DAY },
  { res: 't', ms: 10 * MINUTE, keepMs: 15 * DAY },
  { res: 'h', ms: HOUR, keepMs: 90 * DAY },
  { res: 'd', ms: DAY, keepMs: 800 * DAY },
];

/**
 * Latency histogram bins, 15% wide: bin 0 holds < FLOOR (about 0.01 ms), bin i ≥ 1 holds
 * [GROWTH^(i-1-SHIFT), GROWTH^(i-SHIFT)) ms. SHIFT whole bins below 1 ms keep LAN pings apart.
 */
const GROWTH = 1.15;
const SHIFT = 33;
const FLOOR = GROWTH ** -SHIFT;
const MAX_BIN = 153;
/** Key prefix of the bins in a stored histogram (a JSON object such as {"l40": 3}). */
const KEY = 'l';

export function latencyBin(ms: number): number {
  if (ms < FLOOR) return 0;
  // The epsilon keeps exact bin bounds (such as 1 ms) in the bin they start.
  return Math.min(MAX_BIN, 1 + Math.floor(Math.log(ms) / Math.log(GROWTH) + SHIFT + 1e-9));
}

/** The value a bin stands for: the geometric middle of its bounds. */
export function binValue(bin: number): number {
  if (bin === 0) return FLOOR / 2;
  return GROWTH ** (bin - 0.5 - SHIFT);
}

export type Histogram = Map<number, number>;

export function mergeHist(into: Histogram, json: string): void {
  mergeBins(into, JSON.parse(json) as Record<string, number>);
}

/** Adds a stored histogram, already parsed, into `into`. */
export function mergeBins(into: Histogram, parsed: Record<string, number>): void {
  for (const key in parsed) {
    const n = Number(key.slice(1));
    // 'b' keys are bins from 1 ms up (bin 0: under 1 ms): the same bounds, SHIFT bins lower.
    const bin = key[0] === KEY ? n : n === 0 ? latencyBin(0.5) : n + SHIFT;
    into.set(bin, (into.get(bin) ?? 0) + parsed[key]!);
  }
}

/** The q-quantile (0..1) of a histogram, or null when empty. */
export function quantile(hist: Histogram, q: number): number | null {
  let total = 0;
  for (const n of hist.values()) total += n;
  if (total === 0) return null;
  const rank = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const bin of [...hist.keys()].sort((a, b) => a - b)) {
    seen += hist.get(bin)!;
    if (seen >= rank) return roundLatency(binValue(bin));
  }
  return null;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
/** Sub-millisecond latencies keep their relative precision (0.052, not 0.05). */
const roundLatency = (ms: number) => round(ms, ms < 1 ? 4 : 2);

export type RollupRun = {
  checkId: string;
  ts: number;
  status: 'up' | 'down' | 'degraded';
  latencyMs: number | null;
  value: number | null;
};

// Numbered parameters: binding by position spares an object per row (this runs 4 times per check run).
const upsertSql = `
INSERT INTO check_rollups (check_id, res, bucket, up, down, degraded, lat_count, lat_sum, value_count, value_sum, hist)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, CASE WHEN ?11 IS NULL THEN '{}' ELSE json_object(?11, 1) END)
ON CONFLICT (check_id, res, bucket) DO UPDATE SET
  up = up + excluded.up, down = down + excluded.down, degraded = degraded + excluded.degraded,
  lat_count = lat_count + excluded.lat_count, lat_sum = lat_sum + excluded.lat_sum,
  value_count = value_count + excluded.value_count, value_sum = value_sum + excluded.value_sum,
  hist = CASE WHEN ?11 IS NULL THEN hist
    ELSE json_set(hist, '$.' || ?11, coalesce(json_extract(hist, '$.' || ?11), 0) + 1) END`;

/** Adds one run to its minute, 10-minute, hour and day rollups. Runs inside a writer job. */
export function addToRollups(db: DatabaseSync, run: RollupRun): void {
  const stmt = statement(db, upsertSql);
  const key = run.latencyMs === null ? null : `${KEY}${latencyBin(run.latencyMs)}`;
  const up = run.status === 'up' ? 1 : 0;
  const down = run.status === 'down' ? 1 : 0;
  const degraded = run.status === 'degraded' ? 1 : 0;
  const latCount = run.latencyMs === null ? 0 : 1;
  const valueCount = run.value === null ? 0 : 1;
  for (const { res, ms } of resolutions) {
    const bucket = Math.floor(run.ts / ms) * ms;
    stmt.run(
      run.checkId,
      res,
      bucket,
      up,
      down,
      degraded,
      latCount,
      run.latencyMs ?? 0,
      valueCount,
      run.value ?? 0,
      key,
    );
  }
}

/** The parts that delete rollups past their resolution's retention, along `check_rollups_by_age`. */
export function rollupParts(now: number): PrunePart[] {
  return resolutions.map(({ res, keepMs }) =>
    deleting(
      `DELETE FROM check_rollups WHERE (check_id, res, bucket) IN
         (SELECT check_id, res, bucket FROM check_rollups WHERE res = ? AND bucket < ? LIMIT ?)`,
      res,
      now - keepMs,
    ),
  );
}

export type WindowTotals = { up: number; down: number; degraded: number; latCount: number; latSum: number };

/**
 * The rollup ranges that make up the window [from, now]: whole day buckets inside it, then for the
 * leading edge whole hours, 10 minutes and minutes, each as far as that resolution is still kept. No
 * bucket starts before `from`, so no run before the window counts; the window starts at the first whole
 * minute (window within 2 days), hour (within 90 days) or day inside it. At most ~40 rows per check.
 */
export function windowParts(from: number, now: number): { res: Resolution; lo: number; hi: number }[] {
  const parts: { res: Resolution; lo: number; hi: number }[] = [];
  let hi = Number.MAX_SAFE_INTEGER;
  for (const { res, ms, keepMs } of [...resolutions].reverse()) {
    const lo = Math.ceil(from / ms) * ms;
    // Buckets at or after now − keep are surely still there (pruning ran at or before now).
    if (lo < now - keepMs) break;
    parts.push({ res, lo, hi });
    hi = lo;
  }
  return parts;
}

/** Where the window [from, now] really starts: its earliest part (see windowParts). */
export function windowStart(from: number, now: number): number {
  return windowParts(from, now).at(-1)?.lo ?? from;
}

const windowSums = mapper({
  up: nullable(int),
  down: nullable(int),
  degraded: nullable(int),
  latCount: nullable(int),
  latSum: nullable(real),
});

/** Run counts and latency sums of the checks over the window [from, now] (see windowParts). */
export function windowTotals(db: DatabaseSync, checkIds: string[], from: number, now: number): WindowTotals {
  const totals: WindowTotals = { up: 0, down: 0, degraded: 0, latCount: 0, latSum: 0 };
  if (checkIds.length === 0) return totals;
  const ids = JSON.stringify(checkIds);
  for (const part of windowParts(from, now)) {
    const sums = one(
      db,
      `SELECT sum(up) AS up, sum(down) AS down, sum(degraded) AS degraded, sum(lat_count) AS lat_count,
         sum(lat_sum) AS lat_sum FROM check_rollups
       WHERE check_id IN (SELECT value FROM json_each(?)) AND res = ? AND bucket >= ? AND bucket < ?`,
      windowSums,
      ids,
      part.res,
      part.lo,
      part.hi,
    );
    // An aggregate gives one row, its sums NULL when no bucket matched.
    if (!sums) continue;
    totals.up += sums.up ?? 0;
    totals.down += sums.down ?? 0;
    totals.degraded += sums.degraded ?? 0;
    totals.latCount += sums.latCount ?? 0;
    totals.latSum += sums.latSum ?? 0;
  }
  return totals;
}

/** Percent of up or degraded runs, or null without runs. */
export function uptimePercent(t: Pick<WindowTotals, 'up' | 'down' | 'degraded'>): number | null {
  const good = t.up + t.degraded;
  const total = good + t.down;
  return total === 0 ? null : round((100 * good) / total, 3);
}

/** Mean latency, or null without a latency. */
export function meanLatency(t: WindowTotals): number | null {
  return t.latCount ? round(t.latSum / t.latCount) : null;
}

/** The chart steps and the rollup each reads (SPEC detail `series`). */
const steps: { ms: number; res: Resolution }[] = [
  { ms: MINUTE, res: 'm' },
  { ms: 10 * MINUTE, res: 't' },
  { ms: HOUR, res: 'h' },
  { ms: 6 * HOUR, res: 'h' },
  { ms: DAY, res: 'd' },
  // Only for from/to spans of 400 days not aligned to days, which touch 401 days.
  { ms: 2 * DAY, res: 'd' },
];
export const MAX_POINTS = 400;

/** The finest step giving at most 400 points whose rollups still cover `from`. */
export function chooseStep(from: number, to: number, now: number): { ms: number; res: Resolution } {
  for (const step of steps) {
    const keep = resolutions.find((r) => r.res === step.res)!.keepMs;
    // Points are the steps [from, to) touches: the first and last may be partial.
    const first = Math.floor(from / step.ms) * step.ms;
    const points = Math.ceil(to / step.ms) - first / step.ms;
    if (points <= MAX_POINTS && first >= now - keep) return step;
  }
  return steps[steps.length - 1]!;
}

/** A rollup bucket as the chart reads it; `hist` is the JSON text mergeHist reads. */
const seriesRow = mapper({ bucket: int, latCount: int, valueCount: int, valueSum: real, hist: text });

/** Latency percentiles and command values per step over [from, to). */
export function readSeries(db: DatabaseSync, checkId: string, from: number, to: number, now: number): Series {
  const step = chooseStep(from, to, now);
  const start = Math.floor(from / step.ms) * step.ms;
  const x: number[] = [];
  for (let t = start; t < to; t += step.ms) x.push(t);
  const hists = x.map(() => new Map<number, number>());
  const values = x.map(() => ({ n: 0, sum: 0 }));
  const rows = all(
    db,
    `SELECT bucket, lat_count, value_count, value_sum, hist FROM check_rollups
       WHERE check_id = ? AND res = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
    seriesRow,
    checkId,
    step.res,
    start,
    to,
  );
  let anyValue = false;
  for (const row of rows) {
    const i = Math.floor((row.bucket - start) / step.ms);
    if (row.latCount > 0) mergeHist(hists[i]!, row.hist);
    if (row.valueCount > 0) {
      anyValue = true;
      values[i]!.n += row.valueCount;
      values[i]!.sum += row.valueSum;
    }
  }
  return {
    x,
    stepMs: step.ms,
    p50: hists.map((h) => quantile(h, 0.5)),
    p95: hists.map((h) => quantile(h, 0.95)),
    value: anyValue ? values.map((v) => (v.n ? round(v.sum / v.n, 4) : null)) : [],
  };
}
