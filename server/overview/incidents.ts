import type { DatabaseSync } from 'node:sqlite';
import type { Cause, IncidentSummary } from '../../protocol/incidents.ts';
import { all, bool, int, mapper, nullable, text } from '../store/rows.ts';

/** The open incidents the overview shows on top: two queries (incidents, their alerts), whatever their number. */

const incidentRow = mapper({
  id: text,
  title: text,
  service: nullable(text),
  startedAt: int,
  acknowledgedAt: nullable(int),
  acknowledgedBy: nullable(text),
  inMaintenance: bool,
});

const alertRow = mapper({
  incident: text,
  service: nullable(text),
  host: nullable(text),
  recoveredAt: nullable(int),
});

/** Open incidents, newest first. */
export function openIncidents(db: DatabaseSync): IncidentSummary[] {
  const incidents = all(
    db,
    `SELECT id, title, service, started_at, acknowledged_at, acknowledged_by, in_maintenance
     FROM incidents WHERE resolved_at IS NULL ORDER BY started_at DESC, id`,
    incidentRow,
  );
  if (incidents.length === 0) return [];
  const alerts = all(
    db,
    `SELECT incident, service, host, recovered_at FROM incident_alerts
     WHERE incident IN (SELECT id FROM incidents WHERE resolved_at IS NULL) ORDER BY opened_at, key`,
    alertRow,
  );
  const byIncident = Map.groupBy(alerts, (a) => a.incident);
  return incidents.map((incident) => {
    const its = byIncident.get(incident.id) ?? [];
    // The service that opened it first, then those of its alerts in the order they joined.
    const services = new Set<string>(incident.service === null ? [] : [incident.service]);
    const hosts = new Set<string>();
    for (const a of its) {
      if (a.service !== null) services.add(a.service);
      if (a.host !== null) hosts.add(a.host);
    }
    return {
      id: incident.id,
      title: incident.title,
      state: 'open',
      startedAt: incident.startedAt,
      acknowledgedAt: incident.acknowledgedAt,
      acknowledgedBy: incident.acknowledgedBy,
      resolvedAt: null,
      services: [...services],
      hosts: [...hosts],
      alertCount: its.length,
      failingCount: its.filter((a) => a.recoveredAt === null).length,
      inMaintenance: incident.inMaintenance,
      topCause: topCause(db, incident.id),
    };
  });
}

/** The first likely cause of an incident, shown on its card; null reads "no likely cause found". */
function topCause(_db: DatabaseSync, _incidentId: string): Cause | null {
  return null;
}
