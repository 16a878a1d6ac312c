import type { DatabaseSync } from 'node:sqlite';
import type { WindowKind } from '../../protocol/notify.ts';
import { all, int, mapper, nullable, oneOf, text } from '../store/rows.ts';

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

/** Whether a window of this scope and name holds `scope`. */
const holds = (w: { scope: 'all' | 'service' | 'host'; name: string | null }, scope: Scope) =>
  w.scope === 'all' ||
  (w.scope === 'service' && w.name !== null && scope.services.includes(w.name)) ||
  (w.scope === 'host' && w.name !== null && scope.hosts.includes(w.name));

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
  return found.filter((w) => holds(w, scope)).map(({ id, kind }) => ({ id, kind }));
}

/** The first window that mutes notifications of `scope` at `ts` (a maintenance window mutes too), or null. */
export function mutedBy(db: DatabaseSync, scope: Scope, ts: number): Hold | null {
  return holdsAt(db, scope, ts)[0] ?? null;
}

/** Whether `scope` is in maintenance at `ts`: an incident opening then is marked and notifies nobody. */
export function inMaintenanceAt(db: DatabaseSync, scope: Scope, ts: number): boolean {
  return holdsAt(db, scope, ts).some((h) => h.kind === 'maintenance');
}

/** A span of time, [from, to). */
export type Span = { from: number; to: number };

/** A maintenance window as uptime and the service reads need it. */
export type MaintenanceWindow = {
  scope: 'all' | 'service' | 'host';
  name: string | null;
  starts: number;
  ends: number;
  reason: string | null;
};

const maintenanceRow = mapper({
  scope: oneOf(['all', 'service', 'host'] as const),
  name: nullable(text),
  starts: int,
  ends: int,
  reason: nullable(text),
});

/** Maintenance windows that overlap [from, to), by start. Windows are few: one query per read. */
export function maintenanceBetween(db: DatabaseSync, from: number, to: number): MaintenanceWindow[] {
  return all(
    db,
    `SELECT scope, name, starts, ends, reason FROM windows
     WHERE kind = 'maintenance' AND starts < ? AND ends > ? ORDER BY starts, id`,
    maintenanceRow,
    to,
    from,
  );
}

/** When `scope` was in maintenance within [from, to): its windows' times merged, oldest first. */
export function maintenanceSpans(
  windows: readonly MaintenanceWindow[],
  scope: Scope,
  from: number,
  to: number,
): Span[] {
  const spans: Span[] = [];
  const clipped = windows
    .filter((w) => holds(w, scope))
    .map((w) => ({ from: Math.max(w.starts, from), to: Math.min(w.ends, to) }))
    .filter((s) => s.from < s.to)
    .sort((a, b) => a.from - b.from);
  for (const s of clipped) {
    const last = spans.at(-1);
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to);
    else spans.push({ ...s });
  }
  return spans;
}

/**
 * The maintenance `scope` is in at `now`, or null: until the latest end among the windows holding it
 * then (with the reason of that window).
 */
export function maintenanceAt(
  windows: readonly MaintenanceWindow[],
  scope: Scope,
  now: number,
): { until: number; reason: string | null } | null {
  let found: MaintenanceWindow | null = null;
  for (const w of windows) {
    if (w.starts <= now && now < w.ends && holds(w, scope) && (!found || w.ends > found.ends)) found = w;
  }
  return found ? { until: found.ends, reason: found.reason } : null;
}
