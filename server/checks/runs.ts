import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import { deleting, type PrunePart } from '../store/pruning.ts';
import { statement } from '../store/statements.ts';
import { addToRollups } from './rollups.ts';
import type { RunStatus } from './state.ts';
import { type Change, type CheckRecord, insertChange } from './store.ts';

/** One run as stored: raw row plus rollups. */
export type StoredRun = {
  checkId: string;
  ts: number;
  status: RunStatus;
  latencyMs: number | null;
  detail: string;
  value: number | null;
};

/** What the engine writes after a run or a heartbeat event: the run, the check's new state, changes. */
export type RunWrite = { record: CheckRecord; run: StoredRun | null; changes: Change[] };

/** Raw up runs are kept this long (failures per [retention] check_results); the newest 90 always. */
export const RAW_KEEP_MS = 2 * DAY;
export const BEATS = 90;

/**
 * Writes one result inside a writer job: the check's new state, its run with rollups, its changes.
 * False when the check's row is gone (deleted earlier in the same transaction): nothing is written.
 */
export function writeRun(db: DatabaseSync, { record: c, run, changes }: RunWrite): boolean {
  const s = c.state;
  const result = statement(
    db,
    `UPDATE checks SET status = ?, since = ?, fail_streak = ?, ok_streak = ?, ok_since = ?, last_run_at = ?,
       last_latency_ms = ?, last_detail = ?, last_value = ?, expiry_kind = ?, expiry_expires = ?, expiry_seen = ?,
       expiry_state = ?, last_ping_at = ?, started_at = ?, expected_at = ?
     WHERE id = ?`,
  ).run(
    s.status,
    s.since,
    s.failStreak,
    s.okStreak,
    s.okSince,
    c.lastRunAt,
    c.lastLatencyMs,
    c.lastDetail,
    c.lastValue,
    c.expiry?.kind ?? null,
    c.expiry?.expires ?? null,
    c.expiry?.seen ?? null,
    c.expiryState,
    c.lastPingAt,
    c.startedAt,
    c.expectedAt,
    c.id,
  );
  if (Number(result.changes) === 0) return false;
  if (run) {
    statement(
      db,
      'INSERT INTO check_runs (check_id, ts, status, latency_ms, detail, value) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(run.checkId, run.ts, run.status, run.latencyMs, run.detail, run.value);
    addToRollups(db, run);
  }
  for (const change of changes) insertChange(db, change);
  return true;
}

/**
 * The parts that delete a check's runs past their time: up runs after RAW_KEEP_MS, failures after
 * `failuresKeepMs`. The newest BEATS runs (the detail's beats) always stay, whatever their status and age.
 */
export function runParts(checkId: string, now: number, failuresKeepMs: number): PrunePart[] {
  const older = (status: string, cut: number) =>
    deleting(
      `DELETE FROM check_runs WHERE rowid IN (SELECT rowid FROM check_runs
         WHERE check_id = ?1 AND ${status} AND ts < ?2
           AND ts < (SELECT ts FROM check_runs WHERE check_id = ?1 ORDER BY ts DESC LIMIT 1 OFFSET ${BEATS - 1})
         LIMIT ?3)`,
      checkId,
      cut,
    );
  return [older("status = 'up'", now - RAW_KEEP_MS), older("status != 'up'", now - failuresKeepMs)];
}
