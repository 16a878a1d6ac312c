import type { DatabaseSync } from 'node:sqlite';
import type { FileService } from '../config/core.ts';
import { type ServiceHostLink, serviceHostLinks } from '../hosts/store.ts';

/**
 * How services relate, from `[[service]]` in mon.toml: what each depends on (`depends_on`) and which
 * hosts it runs on, with the hosts linked to a service through the API (`POST /discovered/monitor`).
 * Services made in the panel depend on nothing. Built once per configuration and set of links.
 * `graphOf(db, services).hostsOf(name)` is the one answer to "the hosts of a service": incidents,
 * maintenance, uptime, the service reads and item membership all ask it.
 */
export type ServiceGraph = {
  /** The services `service` depends on, directly or through others (never itself). */
  dependencies(service: string): string[];
  /** The services that depend on `service`, directly or through others (never itself). */
  dependents(service: string): string[];
  /** Whether `service` depends directly on `other`. */
  dependsDirectly(service: string, other: string): boolean;
  /** The hosts `service` runs on: its `[[service]] hosts`, then the hosts linked to it through the API. */
  hostsOf(service: string): string[];
  /** The services that run on `host` (file and API links), sorted. */
  servicesOn(host: string): string[];
};

export function serviceGraph(
  services: readonly FileService[],
  links: readonly ServiceHostLink[] = [],
): ServiceGraph {
  const direct = new Map<string, readonly string[]>();
  const reverse = new Map<string, string[]>();
  const hosts = new Map<string, string[]>();
  for (const s of services) {
    direct.set(s.name, s.dependsOn);
    hosts.set(s.name, [...new Set(s.hosts)]);
    for (const d of s.dependsOn) reverse.set(d, [...(reverse.get(d) ?? []), s.name]);
  }
  for (const l of links) {
    const list = hosts.get(l.service) ?? [];
    if (!list.includes(l.host)) list.push(l.host);
    hosts.set(l.service, list);
  }
  const onHost = new Map<string, string[]>();
  for (const [service, list] of hosts) {
    for (const h of list) onHost.set(h, [...(onHost.get(h) ?? []), service]);
  }
  for (const list of onHost.values()) list.sort();
  // A cycle in depends_on is allowed in the file: the walk visits each service once.
  const walk = (edges: Map<string, readonly string[]>, from: string): string[] => {
    const seen = new Set<string>([from]);
    const queue = [...(edges.get(from) ?? [])];
    const out: string[] = [];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (seen.has(next)) continue;
      seen.add(next);
      out.push(next);
      queue.push(...(edges.get(next) ?? []));
    }
    return out;
  };
  return {
    dependencies: (service) => walk(direct, service),
    dependents: (service) => walk(reverse, service),
    dependsDirectly: (service, other) => direct.get(service)?.includes(other) ?? false,
    hostsOf: (service) => [...(hosts.get(service) ?? [])],
    servicesOn: (host) => [...(onHost.get(host) ?? [])],
  };
}

const graphs = new WeakMap<readonly FileService[], { links: string; graph: ServiceGraph }>();

/**
 * The graph of a loaded configuration's services and of the links stored now (read on `db`: inside a
 * writer job, its own connection), built again only when either changed.
 */
export function graphOf(db: DatabaseSync, services: readonly FileService[]): ServiceGraph {
  const links = serviceHostLinks(db);
  const key = links.map((l) => `${l.service}\0${l.host}`).join('\n');
  const cached = graphs.get(services);
  if (cached?.links === key) return cached.graph;
  const graph = serviceGraph(services, links);
  graphs.set(services, { links: key, graph });
  return graph;
}
