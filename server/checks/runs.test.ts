import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { migrate } from '../store/db.ts';
import { pruneNow } from '../store/pruning.ts';
import { int, scalar } from '../store/rows.ts';
import { runParts } from './runs.ts';

const H = 3600_000;
const D = 24 * H;
const now = Date.UTC(2026, 5, 1);

function database(runs: { ts: number; status: string }[]): DatabaseSync {
  const db = new DatabaseSync(':memory:');
  migrate(db);
  const insert = db.prepare(
    "INSERT INTO check_runs (check_id, ts, status, latency_ms, detail) VALUES ('c1', ?, ?, 1, '')",
  );
  for (const r of runs) insert.run(r.ts, r.status);
  return db;
}
const count = (db: DatabaseSync, where = '1') =>
  scalar(db, `SELECT count(*) AS n FROM check_runs WHERE ${where}`, int);

test('pruning keeps the newest 90 runs whatever their age (a domain check runs every 6 hours)', () => {
  const db = database(Array.from({ length: 121 }, (_, i) => ({ ts: now - i * 6 * H, status: 'up' })));
  pruneNow(db, runParts('c1', now, 7 * D));
  assert.equal(count(db), 90);
});

test('a short check_results removes old failures only: up runs keep their 2 days', () => {
  const ups = Array.from({ length: 100 }, (_, i) => ({ ts: now - 36 * H + i * 60_000, status: 'up' }));
  const oldFailures = Array.from({ length: 50 }, (_, i) => ({
    ts: now - 5 * D + i * 60_000,
    status: 'down',
  }));
  const db = database([...oldFailures, ...ups]);
  pruneNow(db, runParts('c1', now, 1 * D));
  assert.equal(count(db, "status = 'up'"), 100, 'up runs younger than 2 days stay');
  assert.equal(count(db, "status = 'down'"), 0, 'failures older than check_results go');
});

test('failures within check_results stay; older ones go unless among the newest 90', () => {
  const failures = Array.from({ length: 200 }, (_, i) => ({
    ts: now - i * H,
    status: i % 2 ? 'down' : 'degraded',
  }));
  const db = database(failures);
  pruneNow(db, runParts('c1', now, 3 * D));
  // 72 hours of hourly failures are within 3 days (ts > now - 3 d): 72; the newest 90 cover them and 18 more.
  assert.equal(count(db), 90);
  pruneNow(db, runParts('c1', now, 5 * D));
  assert.equal(count(db), 90);
});
