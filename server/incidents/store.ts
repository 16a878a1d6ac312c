import type { DatabaseSync } from 'node:sqlite';
import type { Cause, TimelineKind, TimelineRow } from '../../protocol/incidents.ts';
import { all, bool, int, json, mapper, nullable, one, oneOf, scalar, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * SQL of incidents, their alerts and their own timeline rows (migration 008). Functions taking `db` run
 * inside a writer job or on `store.read`.
 */

export type IncidentRecord = {
  id: string;
  title: string;
  service: string | null;
  startedAt: number;
  acknowledgedAt: number | null;
  acknowledgedBy: string | null;
  resolvedAt: number | null;
  inMaintenance: boolean;
  topCause: Cause | null;
};

export type AlertRecord = {
  incident: string;
  key: string;
  checkId: string | null;
  service: string | null;
  host: string | null;
  name: string;
  detail: string;
  impact: boolean;
  openedAt: number;
  recoveredAt: number | null;
};

const incidentRecord = mapper({
  id: text,
  title: text,
  service: nullable(text),
  startedAt: int,
  acknowledgedAt: nullable(int),
  acknowledgedBy: nullable(text),
  resolvedAt: nullable(int),
  inMaintenance: bool,
  topCause: nullable(json<Cause>()),
});

const alertRecord = mapper({
  incident: text,
  key: text,
  checkId: nullable(text),
  service: nullable(text),
  host: nullable(text),
  name: text,
  detail: text,
  impact: bool,
  openedAt: int,
  recoveredAt: nullable(int),
});

const incidentColumns =
  'id, title, service, started_at, acknowledged_at, acknowledged_by, resolved_at, in_maintenance, top_cause';
const alertColumns = 'incident, key, check_id, service, host, name, detail, impact, opened_at, recovered_at';

export function getIncident(db: DatabaseSync, id: string): IncidentRecord | undefined {
  return one(db, `SELECT ${incidentColumns} FROM incidents WHERE id = ?`, incidentRecord, id);
}

/**
 * Open incidents, newest first, then those resolved in `[from, to]` (open at some time of it), newest
 * first; at most `limit` in all.
 */
export function listIncidents(db: DatabaseSync, from: number, to: number, limit: number): IncidentRecord[] {
  return all(
    db,
    `SELECT ${incidentColumns} FROM (
       SELECT * FROM (SELECT *, 0 AS closed FROM incidents WHERE resolved_at IS NULL
                      ORDER BY started_at DESC, id DESC LIMIT ?)
       UNION ALL
       SELECT * FROM (SELECT *, 1 AS closed FROM incidents WHERE resolved_at >= ? AND started_at <= ?
                      ORDER BY started_at DESC, id DESC LIMIT ?))
     ORDER BY closed, started_at DESC, id DESC LIMIT ?`,
    incidentRecord,
    limit,
    from,
    to,
    limit,
    limit,
  );
}

/** Open incidents, newest first. */
export function openIncidents(db: DatabaseSync): IncidentRecord[] {
  return all(
    db,
    `SELECT ${incidentColumns} FROM incidents WHERE resolved_at IS NULL ORDER BY started_at DESC, id DESC`,
    incidentRecord,
  );
}

/** The alerts of these incidents, each incident's in the order they joined. */
export function alertsOf(db: DatabaseSync, incidents: string[]): AlertRecord[] {
  if (incidents.length === 0) return [];
  return all(
    db,
    `SELECT ${alertColumns} FROM incident_alerts WHERE incident IN (SELECT value FROM json_each(?))
     ORDER BY incident, opened_at, rowid`,
    alertRecord,
    JSON.stringify(incidents),
  );
}

/** The alert of `key` in an open incident (recovered or not), if there is one. */
export function openAlert(db: DatabaseSync, key: string): AlertRecord | undefined {
  // Looked up per open incident: the primary key (incident, key) answers each.
  return one(
    db,
    `SELECT ${alertColumns} FROM incident_alerts
     WHERE incident IN (SELECT id FROM incidents WHERE resolved_at IS NULL) AND key = ?`,
    alertRecord,
    key,
  );
}

/**
 * The host alerts of `host` still failing in open incidents: its own and its containers' (a check's
 * alert names the host it runs from too, but is the check's).
 */
export function openHostAlerts(db: DatabaseSync, host: string): AlertRecord[] {
  return all(
    db,
    `SELECT ${alertColumns} FROM incident_alerts
     WHERE incident IN (SELECT id FROM incidents WHERE resolved_at IS NULL)
       AND host = ? AND check_id IS NULL AND recovered_at IS NULL
     ORDER BY opened_at, key`,
    alertRecord,
    host,
  );
}

/**
 * The open incident `service` belongs to: the one it opened, else one it joined as impact; the oldest
 * when there are several.
 */
export function openIncidentOf(db: DatabaseSync, service: string): IncidentRecord | undefined {
  return one(
    db,
    `SELECT ${incidentColumns} FROM incidents i WHERE resolved_at IS NULL
       AND (service = ? OR EXISTS (SELECT 1 FROM incident_alerts a WHERE a.incident = i.id AND a.service = ?))
     ORDER BY service IS ? DESC, started_at, id LIMIT 1`,
    incidentRecord,
    service,
    service,
    service,
  );
}

/** The open incident a host opened (no service; its first alert is the host's), the oldest if several. */
export function openIncidentOfHost(db: DatabaseSync, host: string): IncidentRecord | undefined {
  return one(
    db,
    `SELECT ${incidentColumns} FROM incidents i WHERE resolved_at IS NULL AND service IS NULL
       AND (SELECT a.host FROM incident_alerts a WHERE a.incident = i.id ORDER BY a.opened_at, a.rowid LIMIT 1) = ?
     ORDER BY started_at, id LIMIT 1`,
    incidentRecord,
    host,
  );
}

/** Open incidents opened by one of `services`, oldest first. */
export function openIncidentsOpenedBy(db: DatabaseSync, services: string[]): IncidentRecord[] {
  if (services.length === 0) return [];
  return all(
    db,
    `SELECT ${incidentColumns} FROM incidents
     WHERE resolved_at IS NULL AND service IN (SELECT value FROM json_each(?)) ORDER BY started_at, id`,
    incidentRecord,
    JSON.stringify(services),
  );
}

export function insertIncident(db: DatabaseSync, i: IncidentRecord): void {
  statement(db, `INSERT INTO incidents (${incidentColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    i.id,
    i.title,
    i.service,
    i.startedAt,
    i.acknowledgedAt,
    i.acknowledgedBy,
    i.resolvedAt,
    i.inMaintenance ? 1 : 0,
    i.topCause === null ? null : JSON.stringify(i.topCause),
  );
}

export function insertAlert(db: DatabaseSync, a: AlertRecord): void {
  statement(db, `INSERT INTO incident_alerts (${alertColumns}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    a.incident,
    a.key,
    a.checkId,
    a.service,
    a.host,
    a.name,
    a.detail,
    a.impact ? 1 : 0,
    a.openedAt,
    a.recoveredAt,
  );
}

/** Marks an alert recovered at `ts`, or failing again with `ts` null. */
export function setRecovered(db: DatabaseSync, incident: string, key: string, ts: number | null): void {
  statement(db, 'UPDATE incident_alerts SET recovered_at = ? WHERE incident = ? AND key = ?').run(
    ts,
    incident,
    key,
  );
}

/** How many alerts of the incident are still failing. */
export function failingAlerts(db: DatabaseSync, incident: string): number {
  return scalar(
    db,
    'SELECT count(*) AS n FROM incident_alerts WHERE incident = ? AND recovered_at IS NULL',
    int,
    incident,
  );
}

export function setResolved(db: DatabaseSync, id: string, ts: number): void {
  statement(db, 'UPDATE incidents SET resolved_at = ? WHERE id = ?').run(ts, id);
}

export function setAcknowledged(db: DatabaseSync, id: string, ts: number, by: string): void {
  statement(db, 'UPDATE incidents SET acknowledged_at = ?, acknowledged_by = ? WHERE id = ?').run(ts, by, id);
}

export function setTopCause(db: DatabaseSync, id: string, cause: Cause | null): void {
  statement(db, 'UPDATE incidents SET top_cause = ? WHERE id = ?').run(
    cause === null ? null : JSON.stringify(cause),
    id,
  );
}

/** A row of an incident's own timeline (deploys and changes are read from their tables). */
export type IncidentEvent = Omit<TimelineRow, 'kind'> & { kind: OwnKind };

/** The kinds of rows an incident keeps itself; `notification` rows are written by the notifications. */
export type OwnKind = Extract<
  TimelineKind,
  'opened' | 'alert' | 'recovered' | 'acknowledged' | 'resolved' | 'notification'
>;

const ownKinds: readonly OwnKind[] = [
  'opened',
  'alert',
  'recovered',
  'acknowledged',
  'resolved',
  'notification',
];

const eventRow = mapper({
  ts: int,
  kind: oneOf(ownKinds),
  title: text,
  detail: nullable(text),
  check: nullable(text),
  service: nullable(text),
  host: nullable(text),
  by: nullable(text),
  url: nullable(text),
});

export function insertEvent(db: DatabaseSync, incident: string, e: IncidentEvent): void {
  statement(
    db,
    `INSERT INTO incident_events (incident, ts, kind, title, detail, check_id, service, host, by, url)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(incident, e.ts, e.kind, e.title, e.detail, e.check, e.service, e.host, e.by, e.url);
}

/** The incident's own timeline rows, oldest first. */
export function eventsOf(db: DatabaseSync, incident: string): IncidentEvent[] {
  return all(
    db,
    `SELECT ts, kind, title, detail, check_id AS "check", service, host, by, url FROM incident_events
     WHERE incident = ? ORDER BY ts, id`,
    eventRow,
    incident,
  );
}
