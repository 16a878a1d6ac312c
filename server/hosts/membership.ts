import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { LiveConfig } from '../config/service.ts';
import { graphOf } from '../incidents/graph.ts';
import { all, mapper, text } from '../store/rows.ts';

/**
 * Which service a container or systemd unit belongs to (docs/hosts.md), first match wins:
 * 1. its `mon.service` label names a service;
 * 2. its Compose project or Compose service label is a service's name;
 * 3. its name (a unit's without `.service`) is a service's name;
 * 4. its host runs exactly one service (`[[service]] hosts`, or linked by `POST /discovered/monitor`).
 * An item of no service is a discovered item (unless dismissed); only items of a service raise
 * container alerts, and every item's restarts and failures are evidence for incidents on its host.
 */
export type Membership = {
  serviceOf(
    host: string,
    kind: 'container' | 'unit',
    name: string,
    labels: Record<string, string>,
  ): string | null;
  /** The services a host runs (file and API links), sorted. */
  servicesOfHost(host: string): string[];
  /**
   * What the host's items belong to depends on: the services, and the host's links to them. Counts
   * kept for the host hold while this stays the same (item-counts.ts).
   */
  stampOf(host: string): string;
};

const serviceRow = mapper({ name: text });

export function membership(db: DatabaseSync, config: LiveConfig): Membership {
  const services = new Set(all(db, 'SELECT name FROM services', serviceRow).map((s) => s.name));
  for (const s of config.services) services.add(s.name);
  const graph = graphOf(db, config.services);
  const known = (name: string | undefined) => (name !== undefined && services.has(name) ? name : null);
  const servicesStamp = createHash('sha256')
    .update([...services].sort().join('\n'))
    .digest('base64url')
    .slice(0, 22);
  return {
    serviceOf(host, kind, name, labels) {
      const named =
        known(labels['mon.service']) ??
        known(labels['com.docker.compose.project']) ??
        known(labels['com.docker.compose.service']) ??
        known(kind === 'unit' ? name.replace(/\.service$/, '') : name);
      if (named) return named;
      const ofHost = graph.servicesOn(host);
      return ofHost.length === 1 ? ofHost[0]! : null;
    },
    servicesOfHost: (host) => graph.servicesOn(host),
    stampOf(host) {
      return `${servicesStamp} ${this.servicesOfHost(host).join('\n')}`;
    },
  };
}
