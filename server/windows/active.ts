import type { DatabaseSync } from 'node:sqlite';
import type { WindowKind } from '../../protocol/notify.ts';
import { all, mapper, nullable, oneOf, text } from '../store/rows.ts';

/**
 * Which silences and maintenance windows hold a scope at a moment (docs/notifications.md): a window
 * of scope `all`, or of one of the services or hosts named. Runs inside a writer job (the outbox and
 * the incident lifecycle ask while they write) or on `store.read`.
 */

export type Scope = { services: readonly string[]; hosts: readonly string[] };
export type Hold = { id: string; kind: WindowKind };

const windowRow = mapper({
  id: text,
  kind: oneOf(['silence', 'maintenance'] as const),
  scope: oneOf(['all', 'service', 'host'] as const),
  name: nullable(text),
});

/** The windows in force at `ts` for `scope`, maintenance first, then by start. */
export function holdsAt(db: DatabaseSync, scope: Scope, ts: number): Hold[] {
  const found = all(
    db,
    `SELECT id, kind, scope, name FROM windows WHERE starts <= ? AND ends > ?
     ORDER BY kind = 'maintenance' DESC, starts, id`,
    windowRow,
    ts,
    ts,
  );
  return found
    .filter(
      (w) =>
        w.scope === 'all' ||
        (w.scope === 'service' && w.name !== null && scope.services.includes(w.name)) ||
        (w.scope === 'host' && w.name !== null && scope.hosts.includes(w.name)),
    )
    .map(({ id, kind }) => ({ id, kind }));
}

/** The first window that mutes notifications of `scope` at `ts` (a maintenance window mutes too), or null. */
export function mutedBy(db: DatabaseSync, scope: Scope, ts: number): Hold | null {
  return holdsAt(db, scope, ts)[0] ?? null;
}

/** Whether `scope` is in maintenance at `ts`: an incident opening then is marked and notifies nobody. */
export function inMaintenanceAt(db: DatabaseSync, scope: Scope, ts: number): boolean {
  return holdsAt(db, scope, ts).some((h) => h.kind === 'maintenance');
}
