import type { DatabaseSync } from 'node:sqlite';
import { HOUR } from '../../protocol/durations.ts';
import type {
  IncidentAlert,
  IncidentChecks,
  IncidentRead,
  IncidentSummary,
  IncidentsList,
} from '../../protocol/incidents.ts';
import type { CheckStatus } from '../../protocol/reads.ts';
import { visitorsAround } from '../analytics/series.ts';
import { readSeries } from '../checks/rollups.ts';
import { incidentHosts } from '../hosts/incident-view.ts';
import { deliveriesOf } from '../notify/deliveries.ts';
import { likelyCauses } from './causes/index.ts';
import type { ServiceGraph } from './graph.ts';
import { scopeOf } from './scope.ts';
import {
  type AlertRecord,
  alertsOf,
  getIncident,
  type IncidentRecord,
  listIncidents,
  openIncidents,
} from './store.ts';
import { timelineOf } from './timeline.ts';

/** The incident list's length at most (SPEC "Limits"). */
export const MAX_INCIDENTS = 200;

/** Deploys, changes and response times are shown from this long before an incident to this long after. */
export const AROUND_MS = HOUR;

/**
 * `GET /api/v1/incidents`: open incidents, then those resolved in the span, newest first. Two queries
 * whatever the number of incidents: the incidents, then their alerts.
 */
export function readIncidents(
  db: DatabaseSync,
  graph: ServiceGraph,
  span: { from: number; to: number },
): IncidentsList {
  return { incidents: summaries(db, graph, listIncidents(db, span.from, span.to, MAX_INCIDENTS)) };
}

/** The open incidents, newest first (the overview shows them on top). */
export function openIncidentSummaries(db: DatabaseSync, graph: ServiceGraph): IncidentSummary[] {
  return summaries(db, graph, openIncidents(db));
}

function summaries(db: DatabaseSync, graph: ServiceGraph, incidents: IncidentRecord[]): IncidentSummary[] {
  const alerts = Map.groupBy(
    alertsOf(
      db,
      incidents.map((i) => i.id),
    ),
    (a) => a.incident,
  );
  return incidents.map((i) => summary(i, alerts.get(i.id) ?? [], graph));
}

function summary(i: IncidentRecord, alerts: AlertRecord[], graph: ServiceGraph): IncidentSummary {
  const scope = scopeOf(i, alerts, graph);
  return {
    id: i.id,
    title: i.title,
    state: i.resolvedAt === null ? 'open' : 'resolved',
    startedAt: i.startedAt,
    acknowledgedAt: i.acknowledgedAt,
    acknowledgedBy: i.acknowledgedBy,
    resolvedAt: i.resolvedAt,
    services: scope.services,
    hosts: scope.hosts,
    alertCount: alerts.length,
    failingCount: alerts.filter((a) => a.recoveredAt === null).length,
    inMaintenance: i.inMaintenance,
    topCause: i.topCause,
  };
}

/**
 * `GET /api/v1/incidents/{id}`, or null for an unknown id. Likely causes are ranked as it is read;
 * `statusOf` gives a check's status now (null for a check that is gone); `sitesOf` a service's sites,
 * sorted.
 */
export function readIncident(
  db: DatabaseSync,
  graph: ServiceGraph,
  statusOf: (checkId: string) => CheckStatus | null,
  sitesOf: (service: string) => readonly string[],
  id: string,
  now: number,
): IncidentRead | null {
  const incident = getIncident(db, id);
  if (!incident) return null;
  const alerts = alertsOf(db, [id]);
  const scope = scopeOf(incident, alerts, graph);
  const causes = likelyCauses(db, scope, graph);
  const from = incident.startedAt - AROUND_MS;
  const end = incident.resolvedAt ?? now;
  return {
    ...summary(incident, alerts, graph),
    topCause: causes[0] ?? null,
    alerts: alerts.map((a) => alertRead(a, statusOf)),
    causes,
    // Deploys and changes until its end (inclusive), or until now while it is open.
    timeline: timelineOf(db, id, scope, from, end + 1),
    responseTimes: responseTimes(db, alerts, from, Math.min(now, end + AROUND_MS), now),
    deliveries: deliveriesOf(db, id),
    hosts: incidentHosts(db, scope.hosts, incident.startedAt, incident.resolvedAt, now),
    visitors: visitorsOf(db, scope.services, sitesOf, incident, now),
  };
}

/**
 * The visitors of the first site of the first of its services that has one, from an hour before the
 * start to an hour after its resolution (or now); null when none of its services has a site.
 */
function visitorsOf(
  db: DatabaseSync,
  services: readonly string[],
  sitesOf: (service: string) => readonly string[],
  incident: IncidentRecord,
  now: number,
): IncidentRead['visitors'] {
  const site = services.map(sitesOf).find((sites) => sites.length > 0)?.[0];
  if (site === undefined) return null;
  const end = incident.resolvedAt ?? now;
  return visitorsAround(db, site, {
    from: incident.startedAt - AROUND_MS,
    to: Math.min(now, end + AROUND_MS),
    start: incident.startedAt,
    end,
    now,
  });
}

function alertRead(a: AlertRecord, statusOf: (checkId: string) => CheckStatus | null): IncidentAlert {
  return {
    key: a.key,
    check: a.checkId,
    service: a.service,
    host: a.host,
    name: a.name,
    detail: a.detail,
    status: a.checkId === null ? null : statusOf(a.checkId),
    impact: a.impact,
    openedAt: a.openedAt,
    recoveredAt: a.recoveredAt,
  };
}

/** The response times of each check of its alerts, once per check. */
function responseTimes(
  db: DatabaseSync,
  alerts: AlertRecord[],
  from: number,
  to: number,
  now: number,
): IncidentChecks {
  const seen = new Set<string>();
  const out: IncidentChecks = [];
  for (const a of alerts) {
    if (a.checkId === null || a.service === null || seen.has(a.checkId)) continue;
    seen.add(a.checkId);
    out.push({
      check: a.checkId,
      name: a.name,
      service: a.service,
      series: readSeries(db, a.checkId, from, to, now),
    });
  }
  return out;
}
