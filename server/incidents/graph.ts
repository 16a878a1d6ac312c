import type { FileService } from '../config/core.ts';

/**
 * How services relate, from `[[service]]` in mon.toml: what each depends on (`depends_on`) and which
 * hosts it runs on. Services made in the panel have neither. Built once per configuration.
 */
export type ServiceGraph = {
  /** The services `service` depends on, directly or through others (never itself). */
  dependencies(service: string): string[];
  /** The services that depend on `service`, directly or through others (never itself). */
  dependents(service: string): string[];
  /** Whether `service` depends directly on `other`. */
  dependsDirectly(service: string, other: string): boolean;
  hostsOf(service: string): string[];
};

export function serviceGraph(services: readonly FileService[]): ServiceGraph {
  const direct = new Map<string, readonly string[]>();
  const reverse = new Map<string, string[]>();
  const hosts = new Map<string, readonly string[]>();
  for (const s of services) {
    direct.set(s.name, s.dependsOn);
    hosts.set(s.name, s.hosts);
    for (const d of s.dependsOn) reverse.set(d, [...(reverse.get(d) ?? []), s.name]);
  }
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
  };
}

const graphs = new WeakMap<readonly FileService[], ServiceGraph>();

/** The graph of a loaded configuration's services, built once per configuration. */
export function graphOf(services: readonly FileService[]): ServiceGraph {
  let graph = graphs.get(services);
  if (!graph) {
    graph = serviceGraph(services);
    graphs.set(services, graph);
  }
  return graph;
}
