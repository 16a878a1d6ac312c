import type { DatabaseSync } from 'node:sqlite';
import { statement } from '../store/statements.ts';

/**
 * Rollups of check runs (DESIGN rule 3): per check and bucket, run counts by status, latency sum and a
 * mergeable latency histogram, and the sum of command values. Long ranges read these, never raw runs.
 */
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export type Resolution = 'm' | 't' | 'h' | 'd';
export const resolutions: { res: Resolution; ms: number; keepMs: number }[] = [
  { res: 'm', ms: MINUTE, keepMs: 2 * DAY },
  { res: 't', ms: 10 * MINUTE, keepMs: 15 * DAY },
  { res: 'h', ms: HOUR, keepMs: 90 * DAY },
  { res: 'd', ms: DAY, keepMs: 800 * DAY },
];

/** Latency histogram bins: bin 0 holds < 1 ms, bin i ≥ 1 holds [GROWTH^(i-1), GROWTH^i) ms. */
const GROWTH = 1.15;
const MAX_BIN = 120;

export function latencyBin(ms: number): number {
  if (ms < 1) return 0;
  return Math.min(MAX_BIN, 1 + Math.floor(Math.log(ms) / Math.log(GROWTH)));
}

/** The value a bin stands for: the geometric middle of its bounds. */
export function binValue(bin: number): number {
  if (bin === 0) return 0.5;
  return GROWTH ** (bin - 0.5);
}

export type Histogram = Map<number, number>;

export function mergeHist(into: Histogram, json: string): void {
  const parsed = JSON.parse(json) as Record<string, number>;
  for (const key in parsed) {
    const bin = Number(key.slice(1));
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
    if (seen >= rank) return round(binValue(bin));
  }
  return null;
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export type RollupRun = {
  checkId: string;
  ts: number;
  status: 'up' | 'down' | 'degraded';
  latencyMs: number | null;
  value: number | null;
};

const upsertSql = `
INSERT INTO check_rollups (check_id, res, bucket, up, down, degraded, lat_count, lat_sum, value_count, value_sum, hist)
VALUES ($id, $res, $bucket, $up, $down, $degraded, $latCount, $latSum, $valueCount, $valueSum,
  CASE WHEN $key IS NULL THEN '{}' ELSE json_object($key, 1) END)
ON CONFLICT (check_id, res, bucket) DO UPDATE SET
  up = up + excluded.up, down = down + excluded.down, degraded = degraded + excluded.degraded,
  lat_count = lat_count + excluded.lat_count, lat_sum = lat_sum + excluded.lat_sum,
  value_count = value_count + excluded.value_count, value_sum = value_sum + excluded.value_sum,
  hist = CASE WHEN $key IS NULL THEN hist
    ELSE json_set(hist, '$.' || $key, coalesce(json_extract(hist, '$.' || $key), 0) + 1) END`;

/** Adds one run to its minute, 10-minute, hour and day rollups. Runs inside a writer job. */
export function addToRollups(db: DatabaseSync, run: RollupRun): void {
  const stmt = statement(db, upsertSql);
  const key = run.latencyMs === null ? null : `b${latencyBin(run.latencyMs)}`;
  for (const { res, ms } of resolutions) {
    stmt.run({
      id: run.checkId,
      res,
      bucket: Math.floor(run.ts / ms) * ms,
      up: run.status === 'up' ? 1 : 0,
      down: run.status === 'down' ? 1 : 0,
      degraded: run.status === 'degraded' ? 1 : 0,
      latCount: run.latencyMs === null ? 0 : 1,
      latSum: run.latencyMs ?? 0,
      valueCount: run.value === null ? 0 : 1,
      valueSum: run.value ?? 0,
      key,
    });
  }
}

/** Deletes rollups past their resolution's retention. */
export function pruneRollups(db: DatabaseSync, now: number): void {
  const stmt = statement(db, 'DELETE FROM check_rollups WHERE res = ? AND bucket < ?');
  for (const { res, keepMs } of resolutions) stmt.run(res, now - keepMs);
}

type RollupRow = {
  bucket: number;
  up: number;
  down: number;
  degraded: number;
  lat_count: number;
  lat_sum: number;
  value_count: number;
  value_sum: number;
  hist: string;
};

/** Percent of up or degraded runs over [from, now] at resolution `res`, or null without runs. */
export function uptime(db: DatabaseSync, checkIds: string[], res: Resolution, from: number): number | null {
  if (checkIds.length === 0) return null;
  const ms = resolutions.find((r) => r.res === res)!.ms;
  // The IN list varies with the service's checks: not worth keeping prepared.
  const row = db
    .prepare(
      `SELECT sum(up) AS up, sum(down) AS down, sum(degraded) AS degraded FROM check_rollups
       WHERE check_id IN (${checkIds.map(() => '?').join(',')}) AND res = ? AND bucket >= ?`,
    )
    .get(...checkIds, res, Math.floor(from / ms) * ms) as {
    up: number | null;
    down: number | null;
    degraded: number | null;
  };
  const good = (row.up ?? 0) + (row.degraded ?? 0);
  const total = good + (row.down ?? 0);
  return total === 0 ? null : round((100 * good) / total, 3);
}

/** Mean latency over [from, now] from 10-minute rollups, or null without a latency. */
export function meanLatency(db: DatabaseSync, checkId: string, from: number): number | null {
  const ms = 10 * MINUTE;
  const row = statement(
    db,
    `SELECT sum(lat_count) AS n, sum(lat_sum) AS s FROM check_rollups
       WHERE check_id = ? AND res = 't' AND bucket >= ?`,
  ).get(checkId, Math.floor(from / ms) * ms) as { n: number | null; s: number | null };
  return row.n ? round(row.s! / row.n) : null;
}

export type Series = {
  x: number[];
  stepMs: number;
  p50: (number | null)[];
  p95: (number | null)[];
  value: (number | null)[];
};

/** The chart steps and the rollup each reads (SPEC detail `series`). */
const steps: { ms: number; res: Resolution }[] = [
  { ms: MINUTE, res: 'm' },
  { ms: 10 * MINUTE, res: 't' },
  { ms: HOUR, res: 'h' },
  { ms: 6 * HOUR, res: 'h' },
  { ms: DAY, res: 'd' },
];
export const MAX_POINTS = 400;

/** The finest step giving at most 400 points whose rollups still cover `from`. */
export function chooseStep(from: number, to: number, now: number): { ms: number; res: Resolution } {
  for (const step of steps) {
    const keep = resolutions.find((r) => r.res === step.res)!.keepMs;
    if ((to - from) / step.ms <= MAX_POINTS && from >= now - keep) return step;
  }
  return steps[steps.length - 1]!;
}

/** Latency percentiles and command values per step over [from, to). */
export function readSeries(db: DatabaseSync, checkId: string, from: number, to: number, now: number): Series {
  const step = chooseStep(from, to, now);
  const start = Math.floor(from / step.ms) * step.ms;
  const x: number[] = [];
  for (let t = start; t < to; t += step.ms) x.push(t);
  const hists = x.map(() => new Map<number, number>());
  const values = x.map(() => ({ n: 0, sum: 0 }));
  const rows = statement(
    db,
    `SELECT bucket, lat_count, value_count, value_sum, hist FROM check_rollups
       WHERE check_id = ? AND res = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`,
  ).all(checkId, step.res, start, to) as RollupRow[];
  let anyValue = false;
  for (const row of rows) {
    const i = Math.floor((row.bucket - start) / step.ms);
    if (row.lat_count > 0) mergeHist(hists[i]!, row.hist);
    if (row.value_count > 0) {
      anyValue = true;
      values[i]!.n += row.value_count;
      values[i]!.sum += row.value_sum;
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
