import type { ChangeRow, DeployRow } from '../../../protocol/deploys.ts';
import type { HostEventKind } from '../../hosts/evidence.ts';
import type { ServiceGraph } from '../graph.ts';
import { hostSymptomsOf } from './host-events.ts';

/**
 * What may have caused an incident: state changes before its start, as gathered from the store
 * (gather.ts) and ranked by a pure function (score.ts). Symptoms (slow or failing checks of the
 * incident's own services) are never candidates. Host agents add what happened on the incident's
 * hosts: container restarts and OOM kills, systemd units failed or restarted, thresholds crossed and
 * the agent's own silence (host-events.ts).
 */
export type Candidate =
  | DeployCandidate
  | ChangeCandidate
  | DependencyCandidate
  | ExpiryCandidate
  | HostCandidate;

export type DeployCandidate = {
  kind: 'deploy';
  deploy: DeployRow;
  /** Deploys of the same version to another service, an hour or more before the start, whose checks never went down since. */
  ranElsewhere: RanElsewhere[];
};

export type RanElsewhere = { id: number; ts: number; service: string; version: string };

/** A change, or a code-host push (`change.kind` push). */
export type ChangeCandidate = { kind: 'change'; change: ChangeRow };

/** A check of a service the incident's services depend on went down. */
export type DependencyCandidate = { kind: 'dependency'; service: string; downs: DependencyDown[] };

export type DependencyDown = {
  check: string;
  name: string;
  at: number;
  detail: string;
  /** When it came back (up or degraded) before the start, or null: still down at the start. */
  recoveredAt: number | null;
};

/** The certificate or domain registration a check of the incident's services watches, as of the start. */
export type ExpiryCandidate = {
  kind: 'certificate' | 'domain';
  check: string;
  name: string;
  service: string;
  expires: number;
  /** When mon recorded this expiry date (the check's last certificate or domain change before the start). */
  recordedAt: number;
};

/** A host event (`host_events`): likely-cause evidence recorded from an agent's samples. */
export type HostEvent = {
  ts: number;
  kind: HostEventKind;
  detail: string;
};
/**
 * What happened on a host to one thing, oldest first: a container (restarts, OOM kills), a systemd unit
 * (failed, restarted), a metric of the host (thresholds crossed) or its agent (silent).
 */
export type HostCandidate = {
  kind: 'container' | 'unit' | 'host' | 'agent';
  host: string;
  /** The container's or unit's name, the metric (cpu, memory, swap, disk, temperature), or `agent`. */
  subject: string;
  /** The service of the container or unit, or null. */
  service: string | null;
  events: HostEvent[];
};
/** How a candidate relates to the incident, closest first. */
export type Relation = 'service' | 'host' | 'dependency' | 'none';

/** What an incident reaches: its services, their hosts, and the services they depend on. */
export type Reach = {
  /** The incident's services, the root first. */
  services: readonly string[];
  /** Each host of the incident, with the service of the incident that runs on it (null: a host of the incident itself). */
  hosts: ReadonlyMap<string, string | null>;
  /** Each service the incident's services depend on (directly or through others), with the one that depends on it. */
  dependencies: ReadonlyMap<string, string>;
  /** The host events the incident's own host alerts are about: symptoms, never causes. */
  symptoms: readonly HostSymptom[];
};

/** What one of an incident's own host alerts records as host events: a metric's crossings, an agent's silences. */
export type HostSymptom = { host: string; kind: 'threshold' | 'silent' | 'restart'; subject: string };

/** An alert of an incident, as its key and host name it. */
export type ScopeAlert = { key: string; host: string | null };

export function reachOf(
  scope: { services: readonly string[]; hosts: readonly string[]; alerts?: readonly ScopeAlert[] },
  graph: ServiceGraph,
): Reach {
  const hosts = new Map<string, string | null>();
  const dependencies = new Map<string, string>();
  for (const host of scope.hosts) hosts.set(host, null);
  for (const service of scope.services) {
    for (const host of graph.hostsOf(service)) if (!hosts.has(host)) hosts.set(host, service);
    for (const dependency of graph.dependencies(service)) {
      // A service of the incident is its impact, never its cause.
      if (!scope.services.includes(dependency) && !dependencies.has(dependency))
        dependencies.set(dependency, service);
    }
  }
  return { services: scope.services, hosts, dependencies, symptoms: hostSymptomsOf(scope.alerts ?? []) };
}

/** The service and host a candidate is bound to (either may be null). */
export function subjectOf(candidate: Candidate): { service: string | null; host: string | null } {
  switch (candidate.kind) {
    case 'deploy':
      return { service: candidate.deploy.service, host: candidate.deploy.host };
    case 'change':
      return { service: candidate.change.service, host: candidate.change.host };
    case 'dependency':
    case 'certificate':
    case 'domain':
      return { service: candidate.service, host: null };
    case 'container':
    case 'unit':
    case 'host':
    case 'agent':
      return { service: candidate.service, host: candidate.host };
  }
}

/**
 * The closest relation of something bound to `service` and/or `host` (null for neither: bound to
 * nothing), or null when it concerns other services and hosts only.
 */
export function relationOf(reach: Reach, service: string | null, host: string | null): Relation | null {
  if (service !== null && reach.services.includes(service)) return 'service';
  if (host !== null && reach.hosts.has(host)) return 'host';
  if (service !== null && reach.dependencies.has(service)) return 'dependency';
  if (service === null && host === null) return 'none';
  return null;
}
