import { newId } from '../checks/manage.ts';
import type { HostAlert } from '../events.ts';
import { inMaintenanceAt } from '../windows/active.ts';
import { closeAlert, failAgain, type IncidentJob, incidentToJoin, record, row } from './record.ts';
import { openerScope } from './scope.ts';
import {
  type AlertRecord,
  type IncidentRecord,
  insertAlert,
  insertIncident,
  openAlert,
  openIncidentOfHost,
} from './store.ts';

/**
 * Host alerts in incidents (docs/incidents.md "Lifecycle"). A host's own alert (a threshold, its agent
 * gone silent) joins the open incident that host opened, else opens one of its own with no service
 * ("web-1: CPU above 90%"). A container's alert joins its service's open incident, else that of a
 * service it depends on (as impact), as a check's does, else opens one for the service ("api: api-1 on
 * web-1 restarting in a loop"). A recovery closes the alert, and the
 * incident resolves with its last failing alert, as for checks.
 */
export function hostAlertChanged(job: IncidentJob, e: HostAlert): void {
  if (e.state === 'failing') hostAlertFailed(job, e);
  else hostAlertRecovered(job, e);
}

/** What fails, as titles and the timeline say it: "web-1: CPU above 90%", "api-1 on web-1 unhealthy". */
function failureOf(e: HostAlert): string {
  const summary = e.summary ?? (e.metric === 'agent' ? 'agent silent' : e.detail);
  return e.service === null ? `${e.host}: ${summary}` : `${e.name} ${summary}`;
}

function hostAlertFailed(job: IncidentJob, e: HostAlert): void {
  const { db, graph } = job;
  const what = failureOf(e);
  const about = { service: e.service, host: e.host };
  const held = openAlert(db, e.key);
  if (held) {
    if (held.recoveredAt === null) return;
    failAgain(job, held, e.detail, { ...row(e.ts, 'alert', `${what} again`, e.detail), ...about });
    return;
  }
  const target = e.service === null ? openIncidentOfHost(db, e.host) : incidentToJoin(db, graph, e.service);
  const alert: AlertRecord = {
    incident: target?.id ?? newId(),
    key: e.key,
    checkId: null,
    service: e.service,
    host: e.host,
    name: e.name,
    detail: e.detail,
    // In the incident of a service it depends on, or one its service joined as impact: impact.
    impact: target !== undefined && e.service !== null && target.service !== e.service,
    openedAt: e.ts,
    recoveredAt: null,
  };
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

function hostAlertRecovered(job: IncidentJob, e: HostAlert): void {
  const held = openAlert(job.db, e.key);
  if (!held || held.recoveredAt !== null) return;
  closeAlert(job, held, e.detail, {
    ...row(e.ts, 'recovered', `${e.name} recovered`, e.detail),
    service: e.service ?? held.service,
    host: e.host,
  });
}
