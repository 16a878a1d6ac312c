import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { migrate } from '../store/db.ts';
import {
  addToRollups,
  binValue,
  chooseStep,
  latencyBin,
  meanLatency,
  mergeHist,
  quantile,
  type RollupRun,
  readSeries,
  resolutions,
  uptimePercent,
  windowParts,
  windowTotals,
} from './rollups.ts';

function rollupDb(): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  migrate(db);
  return db;
}

const up = (ts: number, latencyMs = 100): RollupRun => ({
  checkId: 'c1',
  ts,
  status: 'up',
  latencyMs,
  value: null,
});
const down = (ts: number): RollupRun => ({ checkId: 'c1', ts, status: 'down', latencyMs: 5000, value: null });

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

/** The exact nearest-rank q-quantile. */
function exactQuantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil(q * sorted.length)) - 1]!;
}

test('latency bins are 15% wide and their values stay within 8% of the latency, below 1 ms too', () => {
  for (const ms of [0.011, 0.05, 0.2, 0.51, 0.87, 0.999, 1, 2.5, 17, 180, 999, 12_345, 119_000]) {
    const v = binValue(latencyBin(ms));
    assert.ok(Math.abs(v - ms) / ms < 0.08, `${ms} → ${v}`);
  }
  assert.equal(latencyBin(0), 0);
  assert.ok(latencyBin(1) > latencyBin(0.99));
});

test('histograms stored with bins from 1 ms up read at the same bounds', () => {
  const h = new Map<number, number>();
  // Bin 17 of those covered [1.15^16, 1.15^17) ms: 9.36 to 10.76 ms.
  mergeHist(h, JSON.stringify({ b17: 3 }));
  mergeHist(h, JSON.stringify({ [`l${latencyBin(10)}`]: 1 }));
  assert.deepEqual([...h.entries()], [[latencyBin(10), 4]]);
});

test('percentiles below 1 ms and around 100 ms are within 7% of the exact ones', () => {
  const db = rollupDb();
  const t0 = Date.UTC(2026, 0, 1);
  const next = random(7);
  const ranges: [number, number][] = [
    [0.05, 0.9],
    [80, 140],
  ];
  for (const [i, [lo, hi]] of ranges.entries()) {
    const latencies: number[] = [];
    for (let n = 0; n < 500; n++) {
      const ms = Math.round((lo + next() * (hi - lo)) * 10_000) / 10_000;
      latencies.push(ms);
      addToRollups(db, up(t0 + i * MINUTE + n, ms));
    }
    const series = readSeries(db, 'c1', t0 + i * MINUTE, t0 + (i + 1) * MINUTE, t0 + 2 * MINUTE);
    for (const [q, got] of [
      [0.5, series.p50[0]!],
      [0.95, series.p95[0]!],
    ] as const) {
      const exact = exactQuantile(latencies, q);
      assert.ok(Math.abs(got - exact) / exact < 0.075, `${lo}–${hi} ms p${q * 100}: ${got}, exact ${exact}`);
    }
  }
});

test('quantiles of a merged histogram', () => {
  const h = new Map<number, number>();
  for (let i = 0; i < 90; i++) h.set(latencyBin(100), (h.get(latencyBin(100)) ?? 0) + 1);
  for (let i = 0; i < 10; i++) h.set(latencyBin(1000), (h.get(latencyBin(1000)) ?? 0) + 1);
  assert.ok(Math.abs(quantile(h, 0.5)! - 100) < 8);
  assert.ok(Math.abs(quantile(h, 0.95)! - 1000) < 80);
  assert.equal(quantile(new Map(), 0.5), null);
  // Tens of microseconds keep their digits.
  const lan = quantile(new Map([[latencyBin(0.052), 1]]), 0.5)!;
  assert.ok(Math.abs(lan - 0.052) / 0.052 < 0.08, `${lan}`);
});

test('series steps per range keep points and scanned rows small', () => {
  const now = 1_800_000_000_000;
  assert.deepEqual(chooseStep(now - HOUR, now, now), { ms: MINUTE, res: 'm' });
  assert.deepEqual(chooseStep(now - DAY, now, now), { ms: 10 * MINUTE, res: 't' });
  assert.deepEqual(chooseStep(now - 7 * DAY, now, now), { ms: HOUR, res: 'h' });
  assert.deepEqual(chooseStep(now - 30 * DAY, now, now), { ms: 6 * HOUR, res: 'h' });
  assert.deepEqual(chooseStep(now - 365 * DAY, now, now), { ms: DAY, res: 'd' });
  // An hour a month ago: minute rollups are gone, 10-minute ones too; hours cover it.
  assert.deepEqual(chooseStep(now - 30 * DAY, now - 30 * DAY + HOUR, now), { ms: HOUR, res: 'h' });
});

test('a from/to span of 400 days not aligned to days gives at most 400 points', () => {
  const db = rollupDb();
  const now = Date.UTC(2026, 0, 1) + 7 * HOUR + 13 * MINUTE;
  const to = now - 3 * HOUR;
  const from = to - 400 * DAY;
  addToRollups(db, up(from + HOUR));
  const series = readSeries(db, 'c1', from, to, now);
  assert.ok(series.x.length <= 400, `${series.x.length} points`);
  assert.ok(series.x[0]! <= from && series.x.at(-1)! + series.stepMs >= to, 'the points cover the span');
  assert.ok(series.p50.some((p) => p !== null));
  // Aligned to days, 400 days stay at one day a point.
  const aligned = readSeries(db, 'c1', Date.UTC(2025, 0, 1), Date.UTC(2025, 0, 1) + 400 * DAY, now);
  assert.equal(aligned.stepMs, DAY);
  assert.equal(aligned.x.length, 400);
});

test('uptime, mean latency and series come from the rollups', () => {
  const db = rollupDb();
  const t0 = Date.UTC(2026, 0, 1);
  // 10 runs a minute apart: 8 up (100 ms), 1 degraded (400 ms), 1 down (no latency), and a command value.
  for (let i = 0; i < 10; i++) {
    const status = i === 3 ? 'down' : i === 7 ? 'degraded' : 'up';
    addToRollups(db, {
      checkId: 'c1',
      ts: t0 + i * MINUTE,
      status,
      latencyMs: status === 'down' ? null : status === 'degraded' ? 400 : 100,
      value: i === 5 ? 42 : null,
    });
  }
  const now = t0 + 10 * MINUTE;
  assert.equal(uptimePercent(windowTotals(db, ['c1'], now - DAY, now)), 90);
  assert.equal(uptimePercent(windowTotals(db, ['c1'], now - 365 * DAY, now)), 90);
  assert.equal(uptimePercent(windowTotals(db, ['nope'], now - DAY, now)), null);
  assert.equal(uptimePercent(windowTotals(db, [], now - DAY, now)), null);
  assert.equal(meanLatency(windowTotals(db, ['c1'], now - DAY, now)), 133.33);
  const series = readSeries(db, 'c1', t0, t0 + 10 * MINUTE, now);
  assert.equal(series.stepMs, MINUTE);
  assert.equal(series.x.length, 10);
  assert.equal(series.p50[3], null);
  assert.ok(Math.abs(series.p50[0]! - 100) < 8);
  assert.ok(Math.abs(series.p95[7]! - 400) < 30);
  assert.equal(series.value[5], 42);
  assert.equal(series.value[0], null);
  const hourly = readSeries(db, 'c1', t0, t0 + 7 * DAY, now);
  assert.equal(hourly.stepMs, HOUR);
  assert.ok(Math.abs(hourly.p95[0]! - 400) < 30);
  const noValues = readSeries(db, 'c1', t0 + 6 * MINUTE, t0 + 10 * MINUTE, now);
  assert.deepEqual(noValues.value, []);
});

test('uptime windows and the day average count no run from before the window', () => {
  // Not aligned to any bucket: each window starts inside a minute, 10 minutes, hour and day.
  const now = Date.UTC(2026, 5, 1) + 13 * HOUR + 47 * MINUTE + 31_000;
  // The runs a window may miss: those before its first whole minute, hour or day.
  const edges: [number, number][] = [
    [DAY, MINUTE],
    [30 * DAY, HOUR],
    [365 * DAY, DAY],
  ];
  for (const [span, edge] of edges) {
    const db = rollupDb();
    const from = now - span;
    // Down runs (5000 ms) every minute for 2 days before the window, up runs (100 ms) after its start.
    for (let ts = from - 2 * DAY; ts < from; ts += MINUTE) addToRollups(db, down(ts));
    let ups = 0;
    for (let ts = from; ts <= Math.min(from + 2 * DAY, now); ts += MINUTE, ups++) addToRollups(db, up(ts));
    const totals = windowTotals(db, ['c1'], from, now);
    assert.equal(uptimePercent(totals), 100, `${span / DAY} days`);
    assert.equal(meanLatency(totals), 100);
    assert.equal(totals.down, 0);
    assert.ok(
      totals.up >= ups - edge / MINUTE && totals.up <= ups,
      `${span / DAY} days: ${totals.up} of ${ups}`,
    );
  }
});

test('a window reads about 40 rows per check besides its whole days', () => {
  const now = Date.UTC(2026, 5, 1) + 13 * HOUR + 47 * MINUTE + 31_000;
  const rows = (span: number) =>
    windowParts(now - span, now).reduce((n, p) => {
      const ms = resolutions.find((r) => r.res === p.res)!.ms;
      return n + Math.ceil((Math.min(p.hi, now + 1) - p.lo) / ms);
    }, 0);
  assert.deepEqual(
    windowParts(now - DAY, now).map((p) => p.res),
    ['d', 'h', 't', 'm'],
  );
  assert.deepEqual(
    windowParts(now - 30 * DAY, now).map((p) => p.res),
    ['d', 'h'],
  );
  assert.deepEqual(
    windowParts(now - 365 * DAY, now).map((p) => p.res),
    ['d'],
  );
  assert.ok(rows(DAY) <= 40, `${rows(DAY)} rows`);
  assert.ok(rows(30 * DAY) <= 31 + 24);
  assert.ok(rows(365 * DAY) <= 366);
});
