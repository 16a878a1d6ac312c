import type { DatabaseSync } from 'node:sqlite';
import type { WindowKind, WindowRead } from '../../protocol/notify.ts';
import { all, int, mapper, nullable, oneOf, text } from '../store/rows.ts';

/** Silences and maintenance windows for the settings read: those not yet ended at `now`, soonest first. */

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

export function windowsOf(db: DatabaseSync, kind: WindowKind, now: number): WindowRead[] {
  return all(
    db,
    `SELECT id, scope, name, starts, ends, reason, created_by, created_at FROM windows
     WHERE kind = ? AND ends > ? ORDER BY starts, id`,
    windowRow,
    kind,
    now,
  ).map((w) => ({ ...w, active: w.starts <= now && now < w.ends }));
}
