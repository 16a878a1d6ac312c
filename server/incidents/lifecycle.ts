import type { DatabaseSync } from 'node:sqlite';
import type { DomainEvents, EventSubscriber } from '../events.ts';
import type { ServiceGraph } from './graph.ts';
import { hostAlertChanged, hostRemoved } from './host-alerts.ts';
import { alertFailed, closeAlert, type IncidentJob, row } from './record.ts';
import { openAlert } from './store.ts';

/**
 * The incident lifecycle (docs/incidents.md), a transactional subscriber of domain events: a check going
 * down opens an incident or joins one, a recovery (or the check's removal) closes its alert, and the
 * incident resolves when none is left failing; host alerts do the same, a host's removal closing them
 * (host-alerts.ts). Each change is
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
          if (e.to === 'down') checkFailed(job, e);
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
        case 'host.removed':
          hostRemoved(job, e);
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

/** A check went down: its alert opens or joins an incident as every alert does (record.ts). */
function checkFailed(job: IncidentJob, e: Failed): void {
  const { checkId, name, service, host, ts, detail } = e;
  alertFailed(job, { key: keyOf(checkId), checkId, name, service, host, ts, detail, what: `${name} down` });
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
