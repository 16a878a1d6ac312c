import type { DatabaseSync } from 'node:sqlite';
import type { WindowKind, WindowRead } from '../../protocol/notify.ts';
import { all, int, mapper, nullable, one, oneOf, text } from '../store/rows.ts';

/** Silences and maintenance windows as reads show them (the settings read, the answer to a PUT). */

const columns = 'id, scope, name, starts, ends, reason, created_by, created_at';

const windowRow = mapper({
  id: text,
  scope: oneOf(['all', 'service', 'host'] as const),
  name: nullable(text),
  starts: int,
  ends: int,
  reason: nullable(text),
  createdBy: text,
  createdAt: int,
});

const shown =
  (now: number) =>
  (w: Omit<WindowRead, 'active'>): WindowRead => ({
    ...w,
    active: w.starts <= now && now < w.ends,
  });

/** Windows of `kind` not yet ended at `now`, soonest first. */
export function windowsOf(db: DatabaseSync, kind: WindowKind, now: number): WindowRead[] {
  return all(
    db,
    `SELECT ${columns} FROM windows WHERE kind = ? AND ends > ? ORDER BY starts, id`,
    windowRow,
    kind,
    now,
  ).map(shown(now));
}

/** One window by id, or null. */
export function windowOf(db: DatabaseSync, id: string, now: number): WindowRead | null {
  const found = one(db, `SELECT ${columns} FROM windows WHERE id = ?`, windowRow, id);
  return found ? shown(now)(found) : null;
}
