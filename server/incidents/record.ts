import type { DatabaseSync } from 'node:sqlite';
import { liveKeys } from '../../protocol/live.ts';
import type { IncidentChange } from '../events.ts';
import type { Tx } from '../store/writer.ts';
import { likelyCauses } from './causes/index.ts';
import type { ServiceGraph } from './graph.ts';
import { scopeOf } from './scope.ts';
import {
  type AlertRecord,
  alertsOf,
  failingAlerts,
  getIncident,
  type IncidentEvent,
  type IncidentRecord,
  insertEvent,
  openIncidentOf,
  openIncidentsOpenedBy,
  setRecovered,
  setResolved,
  setTopCause,
} from './store.ts';

/**
 * How an incident's changes are written, whatever their alerts are (checks, host alerts) and whoever
 * makes them (the lifecycle, an acknowledgement): a timeline row, the first likely cause ranked
 * again, an `incident.change` event for the subscribers that follow, and the live keys.
 */

/** What one writer job changes: the changes are dispatched once its events are handled. */
export type IncidentJob = { db: DatabaseSync; tx: Tx; graph: ServiceGraph; changes: IncidentChange[] };

/** A timeline row of the incident's own, bound to nothing yet. */
export function row(
  ts: number,
  kind: IncidentEvent['kind'],
  title: string,
  detail: string | null,
): IncidentEvent {
  return { ts, kind, title, detail, check: null, service: null, host: null, by: null, url: null };
}

/**
 * Records a change of an incident: its timeline row, its first likely cause ranked again (the list
 * shows it without ranking every incident), the event for the other subscribers and the live keys.
 */
export function record(
  job: IncidentJob,
  incident: IncidentRecord,
  change: IncidentChange['change'],
  ts: number,
  alert: AlertRecord | null,
  event: IncidentEvent,
): void {
  const { db, graph } = job;
  insertEvent(db, incident.id, event);
  const scope = scopeOf(incident, alertsOf(db, [incident.id]), graph);
  setTopCause(db, incident.id, likelyCauses(db, scope, graph)[0] ?? null);
  job.changes.push({
    type: 'incident.change',
    incidentId: incident.id,
    change,
    ts,
    title: incident.title,
    service: incident.service,
    alert: alert && {
      key: alert.key,
      checkId: alert.checkId,
      name: alert.name,
      service: alert.service,
      impact: alert.impact,
      detail: alert.detail,
    },
    by: event.by,
    inMaintenance: incident.inMaintenance,
  });
  job.tx.invalidate(liveKeys.incident(incident.id), liveKeys.incidents, liveKeys.overview);
}

/** A recovered alert of an open incident fails again: the same alert, joined again ("down again"). */
export function failAgain(job: IncidentJob, held: AlertRecord, detail: string, event: IncidentEvent): void {
  setRecovered(job.db, held.incident, held.key, null);
  record(job, getIncident(job.db, held.incident)!, 'joined', event.ts, { ...held, detail }, event);
}

/** A failing alert of an open incident recovers; the incident resolves with its last failing alert. */
export function closeAlert(job: IncidentJob, held: AlertRecord, detail: string, event: IncidentEvent): void {
  const { db } = job;
  const ts = event.ts;
  setRecovered(db, held.incident, held.key, ts);
  const incident = getIncident(db, held.incident)!;
  record(job, incident, 'recovered', ts, { ...held, recoveredAt: ts, detail }, event);
  if (failingAlerts(db, incident.id) > 0) return;
  setResolved(db, incident.id, ts);
  record(
    job,
    { ...incident, resolvedAt: ts },
    'resolved',
    ts,
    null,
    row(ts, 'resolved', 'resolved: every alert recovered', null),
  );
}

/**
 * The open incident a new alert of `service` joins (docs/incidents.md "depends_on"): the one the
 * service belongs to, else the one opened by the closest service it depends on (the oldest of equals).
 * Checks and containers alike.
 */
export function incidentToJoin(
  db: DatabaseSync,
  graph: ServiceGraph,
  service: string,
): IncidentRecord | undefined {
  const own = openIncidentOf(db, service);
  if (own) return own;
  const dependencies = graph.dependencies(service);
  const distance = (i: IncidentRecord) => dependencies.indexOf(i.service ?? '');
  return openIncidentsOpenedBy(db, dependencies).reduce<IncidentRecord | undefined>(
    (best, i) => (best === undefined || distance(i) < distance(best) ? i : best),
    undefined,
  );
}
