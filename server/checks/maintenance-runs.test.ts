import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { DAY, HOUR, MINUTE } from '../../protocol/durations.ts';
import { openStore } from '../store/db.ts';
import { pruneNow } from '../store/pruning.ts';
import { statement } from '../store/statements.ts';
import { tempDir } from '../testing.ts';
import { coverSpan, runsInside } from './maintenance-runs.ts';
import { addToRollups, rollupParts } from './rollups.ts';
import { runParts } from './runs.ts';

/** Counting the runs inside maintenance windows from rollups and, at the edges, from stored runs. */

const NOW = Date.UTC(2026, 5, 10, 12);
const S = 1000;

test('a span is read as whole buckets, coarsest first and only where still kept; the edges are left over', () => {
  assert.deepEqual(coverSpan(NOW - 3 * HOUR + 30 * S, NOW - HOUR + 10 * S, NOW), {
    parts: [
      { res: 'm', lo: NOW - 3 * HOUR + MINUTE, hi: NOW - 3 * HOUR + 10 * MINUTE },
      { res: 't', lo: NOW - 3 * HOUR + 10 * MINUTE, hi: NOW - 2 * HOUR },
      { res: 'h', lo: NOW - 2 * HOUR, hi: NOW - HOUR },
    ],
    rest: [
      { from: NOW - 3 * HOUR + 30 * S, to: NOW - 3 * HOUR + MINUTE },
      { from: NOW - HOUR, to: NOW - HOUR + 10 * S },
    ],
  });
  // 20 days back minutes and 10-minute buckets are gone: whole hours, and what is left at the edges.
  const old = NOW - 20 * DAY;
  assert.deepEqual(coverSpan(old + 30 * MINUTE, old + 2 * HOUR + 30 * MINUTE, NOW), {
    parts: [{ res: 'h', lo: old + HOUR, hi: old + 2 * HOUR }],
    rest: [
      { from: old + 30 * MINUTE, to: old + HOUR },
      { from: old + 2 * HOUR, to: old + 2 * HOUR + 30 * MINUTE },
    ],
  });
  // Several days: whole days in the middle.
  const week = coverSpan(NOW - 5 * DAY - HOUR, NOW - DAY + HOUR, NOW);
  assert.deepEqual(
    week.parts.find((p) => p.res === 'd'),
    { res: 'd', lo: NOW - 4.5 * DAY, hi: NOW - 1.5 * DAY },
  );
  assert.deepEqual(week.rest, []);
  assert.deepEqual(coverSpan(NOW, NOW, NOW), { parts: [], rest: [] });
});

test('runs inside a window are counted exactly within 2 days; older edges count only their failures', async (t) => {
  const { dir, remove } = tempDir();
  const store = openStore(join(dir, 'mon.db'));
  t.after(async () => {
    await store.close();
    remove();
  });
  const old = NOW - 20 * DAY;
  // A run every minute for 4 hours, 20 days ago: down from 1:30 to 2:30 (inside the window below), up
  // otherwise; then 100 recent runs, so that pruning drops the old up runs as it would have by now.
  const runs: { ts: number; status: 'up' | 'down' }[] = [];
  for (let ts = old; ts < old + 4 * HOUR; ts += MINUTE) {
    runs.push({ ts, status: ts >= old + 90 * MINUTE && ts < old + 150 * MINUTE ? 'down' : 'up' });
  }
  for (let i = 100; i > 0; i--) runs.push({ ts: NOW - i * MINUTE, status: i <= 3 ? 'down' : 'up' });
  await store.writer.run((db) => {
    const insert = statement(
      db,
      "INSERT INTO check_runs (check_id, ts, status, latency_ms, detail, value) VALUES ('c1', ?, ?, NULL, '', NULL)",
    );
    for (const r of runs) {
      insert.run(r.ts, r.status);
      addToRollups(db, { checkId: 'c1', ts: r.ts, status: r.status, latencyMs: null, value: null });
    }
    pruneNow(db, [...runParts('c1', NOW, 90 * DAY), ...rollupParts(NOW)]);
  });
  const db = store.read;

  // 0:45 to 2:45: the whole hour 1:00-2:00 from rollups (60 runs, 30 down), the edges from stored runs:
  // their 30 failures (2:00-2:30) count, their up runs are no longer stored and stay counted as up.
  const window = { from: old + 45 * MINUTE, to: old + 165 * MINUTE };
  assert.deepEqual(runsInside(db, ['c1'], [window], NOW).get('c1'), { up: 30, down: 60, degraded: 0 });

  // Within 2 days every run is stored: the edges count exactly (the last 10 minutes: 3 down, 7 up).
  const recent = { from: NOW - 10 * MINUTE - 30 * S, to: NOW };
  assert.deepEqual(runsInside(db, ['c1'], [recent], NOW).get('c1'), { up: 7, down: 3, degraded: 0 });
  assert.deepEqual(
    runsInside(db, ['c1', 'c2'], [window, recent], NOW).get('c1'),
    { up: 37, down: 63, degraded: 0 },
    'spans add up',
  );
  assert.equal(runsInside(db, ['c2'], [window], NOW).size, 0, 'a check without runs there is absent');
});
