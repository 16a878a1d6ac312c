import type { CauseScope } from './causes/index.ts';
import type { ServiceGraph } from './graph.ts';
import type { AlertRecord, IncidentRecord } from './store.ts';

/**
 * What an incident is about: the service that opened it, then the services of the alerts that joined
 * it, in order; the hosts of its alerts and those its services run on (`[[service]] hosts`).
 */
export function scopeOf(
  incident: Pick<IncidentRecord, 'service' | 'startedAt'>,
  alerts: readonly Pick<AlertRecord, 'key' | 'service' | 'host'>[],
  graph: ServiceGraph,
): CauseScope {
  const services = new Set<string>();
  if (incident.service !== null) services.add(incident.service);
  for (const a of alerts) if (a.service !== null) services.add(a.service);
  const hosts = new Set<string>();
  for (const a of alerts) if (a.host !== null) hosts.add(a.host);
  for (const s of services) for (const h of graph.hostsOf(s)) hosts.add(h);
  return {
    start: incident.startedAt,
    services: [...services],
    hosts: [...hosts],
    alerts: alerts.map((a) => ({ key: a.key, host: a.host })),
  };
}

/**
 * What silences and maintenance windows of an incident are judged by: the service that opened it and
 * the hosts it runs on, with the host of the alert that opened it (a container's, or the host a check
 * runs from); for an incident no
 * service opened, the host of its first alert. Services of alerts that joined later are left out: a
 * silence of a service that depends on it does not hold it. `alerts` are in the order they joined.
 */
export function openerScope(
  incident: Pick<IncidentRecord, 'service'>,
  alerts: readonly Pick<AlertRecord, 'host'>[],
  graph: ServiceGraph,
): { services: string[]; hosts: string[] } {
  if (incident.service !== null) {
    const hosts = [...graph.hostsOf(incident.service)];
    const opener = alerts[0]?.host;
    if (opener && !hosts.includes(opener)) hosts.push(opener);
    return { services: [incident.service], hosts };
  }
  const host = alerts.find((a) => a.host !== null)?.host;
  return { services: [], hosts: host ? [host] : [] };
}
