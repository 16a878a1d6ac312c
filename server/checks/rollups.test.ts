import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../store/db.ts';
import {
  addToRollups,
  binValue,
  chooseStep,
  DAY,
  HOUR,
  latencyBin,
  MINUTE,
  meanLatency,
  quantile,
  readSeries,
  uptime,
} from './rollups.ts';

test('latency bins are 15% wide and their values stay within 8% of the latency', () => {
  for (const ms of [1, 2.5, 17, 180, 999, 12_345, 119_000]) {
    const v = binValue(latencyBin(ms));
    assert.ok(Math.abs(v - ms) / ms < 0.08, `${ms} → ${v}`);
  }
  assert.equal(latencyBin(0.2), 0);
});

test('quantiles of a merged histogram', () => {
  const h = new Map<number, number>();
  for (let i = 0; i < 90; i++) h.set(latencyBin(100), (h.get(latencyBin(100)) ?? 0) + 1);
  for (let i = 0; i < 10; i++) h.set(latencyBin(1000), (h.get(latencyBin(1000)) ?? 0) + 1);
  assert.ok(Math.abs(quantile(h, 0.5)! - 100) < 8);
  assert.ok(Math.abs(quantile(h, 0.95)! - 1000) < 80);
  assert.equal(quantile(new Map(), 0.5), null);
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

test('uptime, mean latency and series come from the rollups', () => {
  const db = new DatabaseSync(':memory:');
  migrate(db);
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
  assert.equal(uptime(db, ['c1'], 't', now - DAY), 90);
  assert.equal(uptime(db, ['c1'], 'd', now - 365 * DAY), 90);
  assert.equal(uptime(db, ['nope'], 'd', now - DAY), null);
  assert.equal(meanLatency(db, 'c1', now - DAY), 133.33);
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
