import type { DatabaseSync } from 'node:sqlite';
import { newId } from '../checks/manage.ts';
import type { DomainEvents, EventSubscriber } from '../events.ts';
import { inMaintenanceAt } from '../windows/active.ts';
import type { ServiceGraph } from './graph.ts';
import { hostAlertChanged } from './host-alerts.ts';
import { closeAlert, failAgain, type IncidentJob, incidentToJoin, record, row } from './record.ts';
import { openerScope } from './scope.ts';
import { type AlertRecord, type IncidentRecord, insertAlert, insertIncident, openAlert } from './store.ts';

/**
 * The incident lifecycle (docs/incidents.md), a transactional subscriber of domain events: a check going
 * down opens an incident or joins one, a recovery (or the check's removal) closes its alert, and the
 * incident resolves when none is left failing; host alerts do the same (host-alerts.ts). Each change is
 * a timeline row and an `incident.change` event dispatched in the same transaction, and names its live
 * keys for after the commit (record.ts).
 */

export type IncidentContext = {
  events: DomainEvents;
  /** The service graph of the configuration loaded now and of the links stored in `db`. */
  graph(db: DatabaseSync): ServiceGraph;
};

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
        case 'host.alert':
          hostAlertChanged(job, e);
          break;
        case 'incident.change':
          break;
      }
    }
    ctx.events.dispatch(tx, job.changes, now);
  };
}

type Failed = {
  checkId: string;
  name: string;
  service: string;
  /** The host whose agent runs the check: the incident's scope, causes and windows take it in. */
  host: string | null;
  ts: number;
  detail: string;
};

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
    failAgain(job, held, e.detail, {
      ...row(e.ts, 'alert', `${e.name} down again`, e.detail),
      check: e.checkId,
      service: e.service,
      host: held.host,
    });
    return;
  }
  const target = incidentToJoin(db, graph, e.service);
  const alert: AlertRecord = {
    incident: target?.id ?? newId(),
    key,
    checkId: e.checkId,
    service: e.service,
    host: e.host,
    name: e.name,
    detail: e.detail,
    impact: target !== undefined && target.service !== e.service,
    openedAt: e.ts,
    recoveredAt: null,
  };
  const about = { check: e.checkId, service: e.service, host: e.host };
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
    inMaintenance: inMaintenanceAt(db, openerScope({ service: e.service }, [alert], graph), e.ts),
    topCause: null,
  };
  insertIncident(db, incident);
  insertAlert(db, alert);
  record(job, incident, 'opened', e.ts, alert, {
    ...row(e.ts, 'opened', `${e.name} down`, e.detail),
    ...about,
  });
}

/** A check's alert stops failing (recovered, or the check is gone); its incident resolves with the last. */
function alertRecovered(
  job: IncidentJob,
  e: { checkId: string; name: string; service: string; ts: number },
  how: 'recovered' | 'removed',
  detail: string | null,
): void {
  const held = openAlert(job.db, keyOf(e.checkId));
  if (!held || held.recoveredAt !== null) return;
  const title = how === 'removed' ? `${e.name} removed` : `${e.name} recovered`;
  closeAlert(job, held, detail ?? 'the check was removed', {
    ...row(e.ts, 'recovered', title, detail),
    check: e.checkId,
    service: e.service,
    host: held.host,
  });
}
