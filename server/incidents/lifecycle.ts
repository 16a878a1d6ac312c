import type { DatabaseSync } from 'node:sqlite';
import { liveKeys } from '../../protocol/live.ts';
import { newId } from '../checks/manage.ts';
import type { DomainEvents, EventSubscriber, IncidentChange } from '../events.ts';
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
  openIncidentsOpenedBy,
  setRecovered,
  setResolved,
  setTopCause,
} from './store.ts';

/**
 * The incident lifecycle (docs/incidents.md), a transactional subscriber of domain events: a check going
 * down opens an incident or joins one, a recovery (or the check's removal) closes its alert, and the
 * incident resolves when none is left failing. Each change is a timeline row and an `incident.change`
 * event dispatched in the same transaction, and names its live keys for after the commit.
 */

export type IncidentContext = {
  events: DomainEvents;
  /** The service graph of the configuration loaded now and of the links stored in `db`. */
  graph(db: DatabaseSync): ServiceGraph;
};

/** What one writer job changes: the changes are dispatched once its events are handled. */
export type IncidentJob = { db: DatabaseSync; tx: Tx; graph: ServiceGraph; changes: IncidentChange[] };

export function incidentSubscriber(ctx: IncidentContext): EventSubscriber {
  return (db, events, now, tx) => {
    const job: IncidentJob = { db, tx, graph: ctx.graph(db), changes: [] };
    for (const e of events) {
      switch (e.type) {
        case 'check.transition':
          if (e.to === 'down') alertFailed(job, e);
          // Degraded after a down spell is a recovery: the check answers again. Unknown is not (an
          // agent went silent): the alert stays failing until the check's runs say otherwise.
          else if (e.recovered) alertRecovered(job, e, 'recovered', e.detail);
          break;
        case 'check.removed':
          alertRecovered(job, e, 'removed', null);
          break;
        case 'incident.change':
          break;
      }
    }
    ctx.events.dispatch(tx, job.changes, now);
  };
}

type Failed = { checkId: string; name: string; service: string; ts: number; detail: string };

const keyOf = (checkId: string) => `check:${checkId}`;

/**
 * A check went down. Its alert joins the open incident of its service, else the open incident of a
 * service it depends on (as impact), else opens an incident. An alert already failing in an open
 * incident (unknown → down after an agent's silence) stays one alert.
 */
function alertFailed(job: IncidentJob, e: Failed): void {
  const { db, graph } = job;
  const key = keyOf(e.checkId);
  const held = openAlert(db, key);
  if (held) {
    if (held.recoveredAt === null) return;
    setRecovered(db, held.incident, key, null);
    record(
      job,
      getIncident(db, held.incident)!,
      'joined',
      e.ts,
      { ...held, detail: e.detail },
      {
        ...row(e.ts, 'alert', `${e.name} down again`, e.detail),
        check: e.checkId,
        service: e.service,
      },
    );
    return;
  }
  const target = openIncidentOf(db, e.service) ?? dependencyIncident(db, graph, e.service);
  const alert: AlertRecord = {
    incident: target?.id ?? newId(),
    key,
    checkId: e.checkId,
    service: e.service,
    host: null,
    name: e.name,
    detail: e.detail,
    impact: target !== undefined && target.service !== e.service,
    openedAt: e.ts,
    recoveredAt: null,
  };
  const about = { check: e.checkId, service: e.service };
  if (target) {
    insertAlert(db, alert);
    const title = alert.impact
      ? `${e.name} down: ${e.service} depends on ${target.service}`
      : `${e.name} down`;
    record(job, target, 'joined', e.ts, alert, { ...row(e.ts, 'alert', title, e.detail), ...about });
    return;
  }
  const incident: IncidentRecord = {
    id: alert.incident,
    title: `${e.service}: ${e.name} down`,
    service: e.service,
    startedAt: e.ts,
    acknowledgedAt: null,
    acknowledgedBy: null,
    resolvedAt: null,
    inMaintenance: inMaintenanceAt(db, openerScope({ service: e.service }, [], graph), e.ts),
    topCause: null,
  };
  insertIncident(db, incident);
  insertAlert(db, alert);
  record(job, incident, 'opened', e.ts, alert, {
    ...row(e.ts, 'opened', `${e.name} down`, e.detail),
    ...about,
  });
}

/** The open incident opened by the closest service `service` depends on; the oldest of equals. */
function dependencyIncident(
  db: DatabaseSync,
  graph: ServiceGraph,
  service: string,
): IncidentRecord | undefined {
  const dependencies = graph.dependencies(service);
  const open = openIncidentsOpenedBy(db, dependencies);
  const distance = (i: IncidentRecord) => dependencies.indexOf(i.service ?? '');
  return open.reduce<IncidentRecord | undefined>(
    (best, i) => (best === undefined || distance(i) < distance(best) ? i : best),
    undefined,
  );
}

/** A check's alert stops failing (recovered, or the check is gone); its incident resolves with the last. */
function alertRecovered(
  job: IncidentJob,
  e: { checkId: string; name: string; service: string; ts: number },
  how: 'recovered' | 'removed',
  detail: string | null,
): void {
  const { db } = job;
  const key = keyOf(e.checkId);
  const held = openAlert(db, key);
  if (!held || held.recoveredAt !== null) return;
  setRecovered(db, held.incident, key, e.ts);
  const incident = getIncident(db, held.incident)!;
  const title = how === 'removed' ? `${e.name} removed` : `${e.name} recovered`;
  record(
    job,
    incident,
    'recovered',
    e.ts,
    { ...held, recoveredAt: e.ts, detail: detail ?? 'the check was removed' },
    {
      ...row(e.ts, 'recovered', title, detail),
      check: e.checkId,
      service: e.service,
    },
  );
  if (failingAlerts(db, incident.id) > 0) return;
  setResolved(db, incident.id, e.ts);
  record(
    job,
    { ...incident, resolvedAt: e.ts },
    'resolved',
    e.ts,
    null,
    row(e.ts, 'resolved', 'resolved: every alert recovered', null),
  );
}

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
