import type { DatabaseSync } from 'node:sqlite';
import {
  type CheckBody,
  type StoredCheckBody,
  type StoredCheckKind,
  storedCheckKinds,
} from '../../protocol/check.ts';
import { runStatuses } from '../../protocol/reads.ts';
import type { PanelService } from '../config/collisions.ts';
import type { StoredCheck } from '../config/section.ts';
import type { Store } from '../store/db.ts';
import { all, bool, exists, int, json, mapper, nullable, one, oneOf, real, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { CheckState, CheckStatus, RunStatus } from './state.ts';

/** SQL of checks, services and changes. Functions taking `db` run inside a writer job or on `store.read`. */
export type Expiry = { kind: 'certificate' | 'domain'; expires: number; seen: number };

export type CheckRecord = {
  id: string;
  name: string;
  service: string;
  kind: StoredCheckKind;
  /** A command check's body for host-defined checks (checks.toml), else the API's check body. */
  body: StoredCheckBody;
  managed: boolean;
  hostDefined: boolean;
  createdAt: number;
  /** When its definition last changed (an agent's runs from before it are of the old one). */
  updatedAt: number;
  state: CheckState;
  lastRunAt: number | null;
  lastLatencyMs: number | null;
  lastDetail: string | null;
  lastValue: number | null;
  expiry: Expiry | null;
  expiryState: string | null;
  pingTokenHash: string | null;
  pingTokenFile: boolean;
  pingUrlsMade: number;
  lastPingAt: number | null;
  startedAt: number | null;
  /** Heartbeats: when the next ping is expected (moved on by pings and by each recorded miss). */
  expectedAt: number | null;
};

/** Status columns: a check's (`checks.status`, `check_changes.status`) and a run's (`check_runs.status`). */
export const checkStatus = oneOf<CheckStatus>(['up', 'down', 'degraded', 'unknown']);
export const runStatus = oneOf<RunStatus>(runStatuses);

const checkRecord = mapper(
  {
    id: text,
    name: text,
    service: text,
    kind: oneOf(storedCheckKinds),
    body: json<StoredCheckBody>(),
    managed: bool,
    hostDefined: bool,
    createdAt: int,
    updatedAt: int,
    status: checkStatus,
    since: nullable(int),
    failStreak: int,
    okStreak: int,
    okSince: nullable(int),
    lastRunAt: nullable(int),
    lastLatencyMs: nullable(real),
    lastDetail: nullable(text),
    lastValue: nullable(real),
    expiryKind: nullable(oneOf<Expiry['kind']>(['certificate', 'domain'])),
    expiryExpires: nullable(int),
    expirySeen: nullable(int),
    expiryState: nullable(text),
    pingTokenHash: nullable(text),
    pingTokenFile: bool,
    pingUrlsMade: int,
    lastPingAt: nullable(int),
    startedAt: nullable(int),
    expectedAt: nullable(int),
  },
  (r): CheckRecord => ({
    id: r.id,
    name: r.name,
    service: r.service,
    kind: r.kind,
    body: r.body,
    managed: r.managed,
    hostDefined: r.hostDefined,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    state: {
      status: r.status,
      since: r.since,
      failStreak: r.failStreak,
      okStreak: r.okStreak,
      okSince: r.okSince,
    },
    lastRunAt: r.lastRunAt,
    lastLatencyMs: r.lastLatencyMs,
    lastDetail: r.lastDetail,
    lastValue: r.lastValue,
    // The three expiry columns are written together (runs.ts): all set or all NULL.
    expiry:
      r.expiryExpires === null || r.expiryKind === null || r.expirySeen === null
        ? null
        : { kind: r.expiryKind, expires: r.expiryExpires, seen: r.expirySeen },
    expiryState: r.expiryState,
    pingTokenHash: r.pingTokenHash,
    pingTokenFile: r.pingTokenFile,
    pingUrlsMade: r.pingUrlsMade,
    lastPingAt: r.lastPingAt,
    startedAt: r.startedAt,
    expectedAt: r.expectedAt,
  }),
);

export function loadChecks(db: DatabaseSync): CheckRecord[] {
  return all(db, 'SELECT * FROM checks ORDER BY name', checkRecord);
}

/** The command checks a host declared (its checks.toml), as stored: newer than memory inside a writer job. */
export function commandChecksOf(db: DatabaseSync, host: string): CheckRecord[] {
  return all(
    db,
    "SELECT * FROM checks WHERE host_defined = 1 AND json_extract(body, '$.from') = ? ORDER BY name",
    checkRecord,
    host,
  );
}

export function getCheck(db: DatabaseSync, id: string): CheckRecord | null {
  return one(db, 'SELECT * FROM checks WHERE id = ?', checkRecord, id) ?? null;
}

export function insertCheck(db: DatabaseSync, c: CheckRecord): void {
  statement(
    db,
    `INSERT INTO checks (id, name, service, kind, body, managed, host_defined, created_at, updated_at,
       status, since, ping_token_hash, ping_token_file)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    c.id,
    c.name,
    c.service,
    c.kind,
    JSON.stringify(c.body),
    c.managed ? 1 : 0,
    c.hostDefined ? 1 : 0,
    c.createdAt,
    c.createdAt,
    c.state.status,
    c.state.since,
    c.pingTokenHash,
    c.pingTokenFile ? 1 : 0,
  );
}

/**
 * Replaces a check's definition; `resetExpiry` forgets the observed expiry (target changed). False when
 * the check is gone (deleted by a request that came first).
 */
export function updateCheckBody(
  db: DatabaseSync,
  c: Pick<CheckRecord, 'id' | 'name' | 'service' | 'kind' | 'body' | 'pingTokenHash' | 'pingTokenFile'>,
  now: number,
  resetExpiry: boolean,
): boolean {
  const updated = statement(
    db,
    `UPDATE checks SET name = ?, service = ?, kind = ?, body = ?, updated_at = ?, ping_token_hash = ?,
       ping_token_file = ?
     WHERE id = ?`,
  ).run(
    c.name,
    c.service,
    c.kind,
    JSON.stringify(c.body),
    now,
    c.pingTokenHash,
    c.pingTokenFile ? 1 : 0,
    c.id,
  );
  if (Number(updated.changes) === 0) return false;
  if (resetExpiry) {
    statement(
      db,
      `UPDATE checks SET expiry_kind = NULL, expiry_expires = NULL, expiry_seen = NULL, expiry_state = NULL
       WHERE id = ?`,
    ).run(c.id);
  }
  return true;
}

/** Removes a check with its runs, rollups and changes. */
export function deleteCheck(db: DatabaseSync, id: string): void {
  deleteHistory(db, id);
  statement(db, 'DELETE FROM checks WHERE id = ?').run(id);
}

/** Removes the runs, rollups and changes kept under a check's id. */
export function deleteHistory(db: DatabaseSync, id: string): void {
  statement(db, 'DELETE FROM check_runs WHERE check_id = ?').run(id);
  statement(db, 'DELETE FROM check_rollups WHERE check_id = ?').run(id);
  statement(db, 'DELETE FROM check_changes WHERE check_id = ?').run(id);
}

/** Creates the service when missing; `managed` true marks it as defined in mon.toml. */
export function ensureService(db: DatabaseSync, name: string, now: number, managed = false): void {
  statement(
    db,
    `INSERT INTO services (name, managed, created_at) VALUES (?, ?, ?)
     ON CONFLICT (name) DO UPDATE SET managed = max(managed, excluded.managed)`,
  ).run(name, managed ? 1 : 0, now);
}

/** Marks exactly `names` as the file's services; others become panel services. */
export function setManagedServices(db: DatabaseSync, names: string[], now: number): void {
  statement(db, 'UPDATE services SET managed = 0').run();
  for (const name of names) ensureService(db, name, now, true);
}

export type ServiceRecord = { name: string; managed: boolean };

const serviceRecord = mapper({ name: text, managed: bool });

export function listServices(db: DatabaseSync): ServiceRecord[] {
  return all(db, 'SELECT name, managed FROM services ORDER BY name', serviceRecord);
}

const idOnly = mapper({ id: text });
const nameOnly = mapper({ name: text }, (r) => r.name);

/**
 * Why `name` may not be used by a check in `service`, or null: names are unique among checks and
 * heartbeats, and a check may not take the name of another service (nor a service the name of a check).
 */
export function nameConflict(
  db: DatabaseSync,
  name: string,
  service: string,
  exceptId: string | null,
): string | null {
  const check = one(db, 'SELECT id FROM checks WHERE name = ?', idOnly, name);
  if (check && check.id !== exceptId) return `a check named "${name}" exists`;
  // Names are unique across checks, heartbeats and services, a check's own service included.
  if (name === service) return `a check cannot have the name of its service "${service}"`;
  if (exists(db, 'SELECT 1 FROM services WHERE name = ?', name)) return `a service named "${name}" exists`;
  const other = one(db, 'SELECT id FROM checks WHERE name = ?', idOnly, service);
  if (other && other.id !== exceptId) return `a check named "${service}" exists`;
  return null;
}

/**
 * A panel service (`managed` 0) that nothing holds: no check uses it, no host is linked to it (`POST
 * /discovered/monitor`) and no site belongs to it (`POST /api/v1/sites`). Such a service goes, so that
 * its name is free again.
 */
const EMPTY_SERVICE = `managed = 0
  AND NOT EXISTS (SELECT 1 FROM checks c WHERE c.service = services.name)
  AND NOT EXISTS (SELECT 1 FROM service_hosts h WHERE h.service = services.name)
  AND NOT EXISTS (SELECT 1 FROM sites t WHERE t.service = services.name)`;

/** Removes `service` when it is an empty panel service (after its last check was deleted or moved). */
export function dropServiceIfEmpty(db: DatabaseSync, service: string): void {
  statement(db, `DELETE FROM services WHERE name = ? AND ${EMPTY_SERVICE}`).run(service);
}

/**
 * Removes every empty panel service and returns their names: after a reload, a `[[service]]` the file
 * no longer declares and nothing else holds goes, as do those left without checks.
 */
export function dropEmptyServices(db: DatabaseSync): string[] {
  return all(db, `DELETE FROM services WHERE ${EMPTY_SERVICE} RETURNING name`, nameOnly);
}

export type Change = {
  checkId: string;
  service: string;
  ts: number;
  status: CheckStatus | null;
  title: string;
  detail: string;
  /** Certificate and domain changes: the expiry date they recorded. */
  expires?: number | null;
};

export function insertChange(db: DatabaseSync, c: Change): void {
  statement(
    db,
    'INSERT INTO check_changes (check_id, service, ts, status, title, detail, expires) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(c.checkId, c.service, c.ts, c.status, c.title, c.detail, c.expires ?? null);
}

export function setPingToken(
  db: DatabaseSync,
  id: string,
  hash: string,
  fromFile: boolean,
  made: boolean,
): boolean {
  const updated = statement(
    db,
    `UPDATE checks SET ping_token_hash = ?, ping_token_file = ?, ping_urls_made = ping_urls_made + ? WHERE id = ?`,
  ).run(hash, fromFile ? 1 : 0, made ? 1 : 0, id);
  return Number(updated.changes) > 0;
}

// For the mon.toml loader: collisions with panel checks and the export of panel checks.

const panelName = mapper(
  { name: text, from: nullable(text) },
  (r): { name: string; source: 'panel'; from: string | null } => ({
    name: r.name,
    source: 'panel',
    from: r.from,
  }),
);

const exportedCheck = mapper(
  { body: json<CheckBody>(), managed: bool, pingTokenHash: nullable(text) },
  (r): StoredCheck => r,
);

/**
 * Names of the checks created through the API (not the file, not an agent's checks file), with the
 * host each runs from (`from`), which a reload must not make unknown.
 */
export function panelCheckNames(store: Store): { name: string; source: 'panel'; from: string | null }[] {
  return all(
    store.read,
    `SELECT name, json_extract(body, '$.from') AS "from" FROM checks
     WHERE managed = 0 AND host_defined = 0 ORDER BY name`,
    panelName,
  );
}

const panelService = mapper({ name: text, checks: bool, sites: bool, hosts: bool });

/**
 * Services made outside mon.toml, with what holds each (panel checks, sites added through the API,
 * hosts linked through the API): a file check must not take their names. Hosts' command checks hold
 * none: the file wins over those.
 */
export function panelServiceNames(store: Store): PanelService[] {
  return all(
    store.read,
    `SELECT * FROM (
       SELECT name,
         EXISTS (SELECT 1 FROM checks c WHERE c.service = s.name AND c.host_defined = 0) AS checks,
         EXISTS (SELECT 1 FROM sites t WHERE t.service = s.name) AS sites,
         EXISTS (SELECT 1 FROM service_hosts h WHERE h.service = s.name) AS hosts
       FROM services s WHERE managed = 0)
     WHERE checks OR sites OR hosts ORDER BY name`,
    panelService,
  );
}

/**
 * File and panel checks for the config export: panel checks as check bodies, and every heartbeat's
 * stored token hash (written as `ping_token_hash`, so that loading the export keeps its URL).
 */
export function checksForExport(store: Store): StoredCheck[] {
  return all(
    store.read,
    'SELECT body, managed, ping_token_hash FROM checks WHERE host_defined = 0 ORDER BY name',
    exportedCheck,
  );
}
