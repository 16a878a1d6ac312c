import type { DatabaseSync } from 'node:sqlite';
import type { TimelineRow } from '../../protocol/incidents.ts';
import { changesBetween, deploysBetween } from '../deploys/read.ts';
import type { CauseScope } from './causes/index.ts';
import { eventsOf } from './store.ts';

/**
 * An incident's timeline, oldest first: its own rows (opened, alerts, recoveries, acknowledgement,
 * resolution, notifications sent) with the deploys and changes of its services and hosts, and the
 * changes bound to nothing, from `from` until `to`.
 */
export function timelineOf(
  db: DatabaseSync,
  incident: string,
  scope: CauseScope,
  from: number,
  to: number,
): TimelineRow[] {
  const services = new Set(scope.services);
  const hosts = new Set(scope.hosts);
  const ours = (service: string | null, host: string | null) =>
    (service !== null && services.has(service)) || (host !== null && hosts.has(host));
  const deploys: TimelineRow[] = deploysBetween(db, from, to)
    .filter((d) => ours(d.service, d.host))
    .map((d) => ({
      ts: d.ts,
      kind: 'deploy',
      title: `${d.service} ${d.version} deployed`,
      detail: d.description,
      check: null,
      service: d.service,
      host: d.host,
      by: d.by,
      url: d.url,
    }));
  const changes: TimelineRow[] = changesBetween(db, from, to)
    .filter((c) => ours(c.service, c.host) || (c.service === null && c.host === null))
    .map((c) => ({
      ts: c.ts,
      kind: c.kind,
      title: c.what,
      detail: c.description,
      check: null,
      service: c.service,
      host: c.host,
      by: c.by,
      url: c.url,
    }));
  // A stable sort: at the same time, what happened to the services comes before what the incident did.
  return [...deploys, ...changes, ...eventsOf(db, incident)].sort((a, b) => a.ts - b.ts);
}
