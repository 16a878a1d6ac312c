import type { IncidentVisitors } from './analytics.ts';
/**
 * Incident reads (SPEC `GET /api/v1/incidents`, `/incidents/{id}`, docs/incidents.md): shared by the
 * server's builders, the panel and the tests.
 */
import type { IncidentHost } from './hosts.ts';
import type { Delivery } from './notify.ts';
import type { CheckStatus, Series } from './reads.ts';

export type IncidentState = 'open' | 'resolved';

/** What a likely cause is; `host` is a threshold crossed, `agent` an agent gone silent. */
export type CauseKind =
  | 'deploy'
  | 'change'
  | 'dependency'
  | 'certificate'
  | 'domain'
  | 'host'
  | 'container'
  | 'unit'
  | 'agent';

/** One factor of a cause's score: its name, its weight in the product, and why in words. */
export type CauseFactor = { name: 'time' | 'relation' | 'kind' | 'counter'; value: number; why: string };

/** A fact behind a cause: what happened, when, by whom, with a link. */
export type Evidence = { what: string; ts: number; by: string | null; url: string | null };

/**
 * A likely cause: a state change before the incident's start. `score` (0 to 1) is the product of its
 * `factors`; docs/incidents.md publishes the formula. `counter` holds counter-evidence in words (the
 * same version ran for an hour elsewhere without failing).
 */
export type Cause = {
  kind: CauseKind;
  title: string;
  score: number;
  factors: CauseFactor[];
  evidence: Evidence[];
  counter: string[];
  /** What it points at: a deploy or change id, a service, a check, a host. */
  ref: { deploy?: number; change?: number; service?: string; check?: string; host?: string };
};

/** Something failing in an incident; `impact` = joined because it depends on the incident's services. */
export type IncidentAlert = {
  key: string;
  check: string | null;
  service: string | null;
  host: string | null;
  name: string;
  detail: string;
  status: CheckStatus | null;
  impact: boolean;
  openedAt: number;
  recoveredAt: number | null;
};

export type TimelineKind =
  | 'opened'
  | 'alert'
  | 'recovered'
  | 'acknowledged'
  | 'resolved'
  | 'deploy'
  | 'change'
  | 'push'
  | 'notification';

/** A timeline row (SPEC "Timeline rows"): `check` is the changed check's id or null; deploys and changes carry `by` and `url`. */
export type TimelineRow = {
  ts: number;
  kind: TimelineKind;
  title: string;
  detail: string | null;
  check: string | null;
  service: string | null;
  host: string | null;
  by: string | null;
  url: string | null;
};

/** An incident in the list and on the overview. */
export type IncidentSummary = {
  id: string;
  title: string;
  state: IncidentState;
  startedAt: number;
  acknowledgedAt: number | null;
  acknowledgedBy: string | null;
  resolvedAt: number | null;
  services: string[];
  hosts: string[];
  /** Alerts in it, and how many of them are still failing. */
  alertCount: number;
  failingCount: number;
  /** Opened inside a maintenance window. */
  inMaintenance: boolean;
  /** The first likely cause, or null: "no likely cause found". */
  topCause: Cause | null;
};

/** `GET /api/v1/incidents`: open incidents, then those resolved in range, newest first; at most 200. */
export type IncidentsList = { incidents: IncidentSummary[] };

/** The response times of one of its checks around the incident. */
export type IncidentChecks = { check: string; name: string; service: string; series: Series }[];

/**
 * `GET /api/v1/incidents/{id}`: the summary, with its hosts (at most 5, in the summary's order) shown
 * around the start instead of named.
 */
export type IncidentRead = Omit<IncidentSummary, 'hosts'> & {
  alerts: IncidentAlert[];
  causes: Cause[];
  timeline: TimelineRow[];
  responseTimes: IncidentChecks;
  /** Its notifications, one per change and channel, oldest first. */
  deliveries: Delivery[];
  /** CPU, memory, the largest containers and units, and the agent's log lines around the start. */
  hosts: IncidentHost[];
  /** The visitors of the first of its services' sites around the start, or null when none has a site. */
  visitors: IncidentVisitors | null;
};
