import type { DatabaseSync } from 'node:sqlite';
import type { WindowBody, WindowKind } from '../../protocol/notify.ts';
import { int, mapper, nullable, one, oneOf, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/** SQL of the `windows` table (migration 012) beyond the reads of active.ts and read.ts. Writer jobs only. */

export type StoredWindow = WindowBody & { id: string; kind: WindowKind };

const storedRow = mapper({
  id: text,
  kind: oneOf(['silence', 'maintenance'] as const),
  scope: oneOf(['all', 'service', 'host'] as const),
  name: nullable(text),
  starts: int,
  ends: int,
  reason: nullable(text),
});

/** The window `id` of `kind`, or null: a silence's id is unknown on the maintenance path. */
export function getWindow(db: DatabaseSync, kind: WindowKind, id: string): StoredWindow | null {
  return (
    one(
      db,
      'SELECT id, kind, scope, name, starts, ends, reason FROM windows WHERE id = ? AND kind = ?',
      storedRow,
      id,
      kind,
    ) ?? null
  );
}

export function insertWindow(db: DatabaseSync, w: StoredWindow & { createdBy: string }, now: number): void {
  statement(
    db,
    `INSERT INTO windows (id, kind, scope, name, starts, ends, reason, created_by, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(w.id, w.kind, w.scope, w.name, w.starts, w.ends, w.reason, w.createdBy, now, now);
}

/** Changes scope, name, times and reason; `created_by` stays who made it. */
export function updateWindow(db: DatabaseSync, id: string, body: WindowBody, now: number): void {
  statement(
    db,
    'UPDATE windows SET scope = ?, name = ?, starts = ?, ends = ?, reason = ?, updated_at = ? WHERE id = ?',
  ).run(body.scope, body.name, body.starts, body.ends, body.reason, now, id);
}

/** Ends a window in force at `now`: the time it held stays recorded (uptime, deliveries it muted). */
export function endWindow(db: DatabaseSync, id: string, now: number): void {
  statement(db, 'UPDATE windows SET ends = ?, updated_at = ? WHERE id = ?').run(now, now, id);
}

export function deleteWindow(db: DatabaseSync, id: string): void {
  statement(db, 'DELETE FROM windows WHERE id = ?').run(id);
}

/** Deletes windows of `kind` that ended before `before`; returns how many. */
export function pruneWindows(db: DatabaseSync, kind: WindowKind, before: number): number {
  return Number(statement(db, 'DELETE FROM windows WHERE kind = ? AND ends < ?').run(kind, before).changes);
}
