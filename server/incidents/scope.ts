import type { CauseScope } from './causes/index.ts';
import type { ServiceGraph } from './graph.ts';
import type { AlertRecord, IncidentRecord } from './store.ts';

/**
 * What an incident is about: the service that opened it, then the services of the alerts that joined
 * it, in order; the hosts of its alerts and those its services run on (`[[service]] hosts`).
 */
export function scopeOf(
  incident: Pick<IncidentRecord, 'service' | 'startedAt'>,
  alerts: readonly Pick<AlertRecord, 'service' | 'host'>[],
  graph: ServiceGraph,
): CauseScope {
  const services = new Set<string>();
  if (incident.service !== null) services.add(incident.service);
  for (const a of alerts) if (a.service !== null) services.add(a.service);
  const hosts = new Set<string>();
  for (const a of alerts) if (a.host !== null) hosts.add(a.host);
  for (const s of services) for (const h of graph.hostsOf(s)) hosts.add(h);
  return { start: incident.startedAt, services: [...services], hosts: [...hosts] };
}

/**
 * What silences and maintenance windows of an incident are judged by: the service that opened it and
 * the hosts it runs on; for an incident no service opened, the host of its first alert. Services of
 * alerts that joined later are left out: a silence of a service that depends on it does not hold it.
 */
export function openerScope(
  incident: Pick<IncidentRecord, 'service'>,
  alerts: readonly Pick<AlertRecord, 'host'>[],
  graph: ServiceGraph,
): { services: string[]; hosts: string[] } {
  if (incident.service !== null) {
    return { services: [incident.service], hosts: graph.hostsOf(incident.service) };
  }
  const host = alerts.find((a) => a.host !== null)?.host;
  return { services: [], hosts: host ? [host] : [] };
}
