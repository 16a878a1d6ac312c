import type { HostAlert, HostRemoved } from '../events.ts';
import { alertFailed, closeAlert, type IncidentJob, row } from './record.ts';
import { openAlert, openHostAlerts } from './store.ts';

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
  const { key, name, service, host, ts, detail } = e;
  alertFailed(job, { key, checkId: null, name, service, host, ts, detail, what: failureOf(e) });
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

/** What a removed host's alerts say as they close (and, the last closed, their incident resolves). */
export const removedDetail = (host: string) => `the host ${host} was removed`;

/**
 * A host was removed: its own alerts and its containers' still open close as removed, as a removed
 * check's does (lifecycle.ts), and each incident resolves with its last failing alert.
 */
export function hostRemoved(job: IncidentJob, e: HostRemoved): void {
  const detail = removedDetail(e.host);
  for (const held of openHostAlerts(job.db, e.host)) {
    closeAlert(job, held, detail, {
      ...row(e.ts, 'recovered', `${held.name} removed`, detail),
      service: held.service,
      host: e.host,
    });
  }
}
