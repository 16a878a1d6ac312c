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
