import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import { deleting, type PrunePart } from '../store/pruning.ts';
import { all, exists, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { initialState } from './state.ts';
import { type CheckRecord, deleteHistory, ensureService, getCheck } from './store.ts';

/**
 * File checks taken out of mon.toml are set aside rather than deleted: the row moves to
 * `removed_checks` (so it neither runs, nor shows in reads, nor holds its name), while its runs,
 * rollups and changes stay under its id. Put back under the same name within a day, the check comes
 * back with its id, history and ping URL (its status starts afresh); after that day it is purged for good (prune.ts).
 * An editor that empties mon.toml for a moment while it saves therefore costs nothing.
 */
export const KEEP_REMOVED_MS = DAY;

/** Every column of `checks`, copied as they are (removed-checks.test.ts compares both tables with it). */
export const checkColumns = [
  'id',
  'name',
  'service',
  'kind',
  'body',
  'managed',
  'host_defined',
  'created_at',
  'updated_at',
  'status',
  'since',
  'fail_streak',
  'ok_streak',
  'ok_since',
  'last_run_at',
  'last_latency_ms',
  'last_detail',
  'last_value',
  'expiry_kind',
  'expiry_expires',
  'expiry_seen',
  'expiry_state',
  'ping_token_hash',
  'ping_token_file',
  'ping_urls_made',
  'last_ping_at',
  'started_at',
  'expected_at',
].join(', ');

const removedRow = mapper({ id: text, service: text, pingTokenHash: nullable(text) });
const idOnly = mapper({ id: text }, (r) => r.id);

/** Moves a check's row out of `checks`; one removed check per name (an older one goes for good). */
export function setAside(db: DatabaseSync, id: string, now: number): void {
  const older = one(
    db,
    'SELECT r.id FROM removed_checks r JOIN checks c ON c.name = r.name WHERE c.id = ?',
    idOnly,
    id,
  );
  if (older !== undefined) purge(db, older);
  statement(
    db,
    `INSERT INTO removed_checks (${checkColumns}, removed_at) SELECT ${checkColumns}, ? FROM checks WHERE id = ?`,
  ).run(now, id);
  statement(db, 'DELETE FROM checks WHERE id = ?').run(id);
}

/**
 * Puts back the check removed under `name` less than a day before `now`, in its service (made again if
 * it went); null when there is none. Its ping token hash comes back unless another check took it
 * meanwhile. Its status starts afresh, as a new check's: its removal closed its alert, so a check put
 * back while still failing must go down again (two failed runs) to open an incident.
 */
export function takeBack(db: DatabaseSync, name: string, now: number): CheckRecord | null {
  const row = one(
    db,
    'SELECT id, service, ping_token_hash FROM removed_checks WHERE name = ? AND removed_at > ?',
    removedRow,
    name,
    now - KEEP_REMOVED_MS,
  );
  if (!row) return null;
  if (
    row.pingTokenHash !== null &&
    exists(db, 'SELECT 1 FROM checks WHERE ping_token_hash = ?', row.pingTokenHash)
  ) {
    statement(db, 'UPDATE removed_checks SET ping_token_hash = NULL WHERE id = ?').run(row.id);
  }
  ensureService(db, row.service, now, true);
  statement(
    db,
    `INSERT INTO checks (${checkColumns}) SELECT ${checkColumns} FROM removed_checks WHERE id = ?`,
  ).run(row.id);
  statement(db, 'DELETE FROM removed_checks WHERE id = ?').run(row.id);
  const fresh = initialState();
  statement(
    db,
    'UPDATE checks SET status = ?, since = ?, fail_streak = ?, ok_streak = ?, ok_since = ? WHERE id = ?',
  ).run(fresh.status, fresh.since, fresh.failStreak, fresh.okStreak, fresh.okSince, row.id);
  return getCheck(db, row.id);
}

/** The checks removed a day or more before `now`: gone for good, with their history. */
export function purgeable(db: DatabaseSync, now: number): string[] {
  return all(db, 'SELECT id FROM removed_checks WHERE removed_at <= ?', idOnly, now - KEEP_REMOVED_MS);
}

/**
 * The parts that delete a removed check's history, its row last: a pass a crash cut short is taken up
 * again by the next (the row still names it).
 */
export function purgeParts(id: string): PrunePart[] {
  return [
    deleting(
      'DELETE FROM check_runs WHERE rowid IN (SELECT rowid FROM check_runs WHERE check_id = ? LIMIT ?)',
      id,
    ),
    deleting(
      `DELETE FROM check_rollups WHERE (check_id, res, bucket) IN
         (SELECT check_id, res, bucket FROM check_rollups WHERE check_id = ? LIMIT ?)`,
      id,
    ),
    deleting(
      'DELETE FROM check_changes WHERE id IN (SELECT id FROM check_changes WHERE check_id = ? LIMIT ?)',
      id,
    ),
    deleting('DELETE FROM removed_checks WHERE id = ? AND ? > 0', id),
  ];
}

function purge(db: DatabaseSync, id: string): void {
  deleteHistory(db, id);
  statement(db, 'DELETE FROM removed_checks WHERE id = ?').run(id);
}
