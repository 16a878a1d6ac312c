import type { DatabaseSync } from 'node:sqlite';
import { liveKeys } from '../../protocol/live.ts';
import { newId } from '../checks/manage.ts';
import type { IncidentChange } from '../events.ts';
import type { Tx } from '../store/writer.ts';
import { inMaintenanceAt } from '../windows/active.ts';
import { likelyCauses } from './causes/index.ts';
import type { ServiceGraph } from './graph.ts';
import { openerScope, scopeOf } from './scope.ts';
import {
  type AlertRecord,
  alertsOf,
  failingAlerts,
  getIncident,
  type IncidentEvent,
  type IncidentRecord,
  insertAlert,
  insertEvent,
  insertIncident,
  openAlert,
  openIncidentOf,
  openIncidentOfHost,
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

/** An alert that started failing: a check down (lifecycle.ts) or a host alert (host-alerts.ts). */
export type FailingAlert = {
  /** `check:<id>`, `host:<host>:<metric>`, `container:<host>:<name>`, `agent:<host>`. */
  key: string;
  checkId: string | null;
  name: string;
  /** Null for a host's own alert: it joins or opens the incident of its host. */
  service: string | null;
  host: string | null;
  ts: number;
  detail: string;
  /** What fails, for titles and the timeline: "checkout down", "web-1: CPU above 90%". */
  what: string;
};

/**
 * An alert started failing (docs/incidents.md "Lifecycle"). One already failing in an open incident
 * stays one alert (unknown → down after an agent's silence); a recovered one fails again in its
 * incident ("… again"). Else it joins the open incident of its service, or of the closest service
 * that service depends on (as impact); a host's own alert joins the incident its host opened; else
 * it opens an incident, in maintenance when a window covers what it concerns.
 */
export function alertFailed(job: IncidentJob, e: FailingAlert): void {
  const { db, graph } = job;
  const { what } = e;
  const held = openAlert(db, e.key);
  if (held) {
    if (held.recoveredAt === null) return;
    const about = { check: e.checkId, service: e.service, host: held.host };
    failAgain(job, held, e.detail, { ...row(e.ts, 'alert', `${what} again`, e.detail), ...about });
    return;
  }
  const target =
    e.service !== null
      ? incidentToJoin(db, graph, e.service)
      : e.host !== null
        ? openIncidentOfHost(db, e.host)
        : undefined;
  const alert: AlertRecord = {
    incident: target?.id ?? newId(),
    key: e.key,
    checkId: e.checkId,
    service: e.service,
    host: e.host,
    name: e.name,
    detail: e.detail,
    // In the incident of a service it depends on, or one its service joined as impact: impact.
    impact: target !== undefined && e.service !== null && target.service !== e.service,
    openedAt: e.ts,
    recoveredAt: null,
  };
  const about = { check: e.checkId, service: e.service, host: e.host };
  if (target) {
    insertAlert(db, alert);
    const title = alert.impact ? `${what}: ${e.service} depends on ${target.service}` : what;
    record(job, target, 'joined', e.ts, alert, { ...row(e.ts, 'alert', title, e.detail), ...about });
    return;
  }
  const incident: IncidentRecord = {
    id: alert.incident,
    title: e.service === null ? what : `${e.service}: ${what}`,
    service: e.service,
    startedAt: e.ts,
    acknowledgedAt: null,
    acknowledgedBy: null,
    resolvedAt: null,
    inMaintenance: inMaintenanceAt(db, openerScope({ service: e.service }, [alert], graph), e.ts),
    topCause: null,
  };
  insertIncident(db, incident);
  insertAlert(db, alert);
  record(job, incident, 'opened', e.ts, alert, { ...row(e.ts, 'opened', what, e.detail), ...about });
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
