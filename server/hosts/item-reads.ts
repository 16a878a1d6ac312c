import type { DatabaseSync } from 'node:sqlite';
import { containerHealths } from '../../protocol/agent-constants.ts';
import type { ContainerRow, DiscoveredItem, UnitRow } from '../../protocol/hosts.ts';
import { all, exists, int, json, mapper, nullable, oneOf, real, text } from '../store/rows.ts';
import { DISMISSED_LIVE_SQL } from './item-counts.ts';
import type { Membership } from './membership.ts';

/**
 * Containers and systemd units of hosts as last seen (`host_items`), with the service each belongs to
 * (membership.ts) and the discovered items among them: those of no service, not dismissed.
 */

type Kind = 'container' | 'unit';
const kind = oneOf<Kind>(['container', 'unit']);

const itemRow = mapper({
  id: text,
  kind,
  name: text,
  state: text,
  subState: nullable(text),
  health: nullable(oneOf<NonNullable<ContainerRow['health']>>(containerHealths)),
  restarts: int,
  exitCode: nullable(int),
  image: nullable(text),
  startedAt: nullable(int),
  labels: nullable(json<Record<string, string>>()),
  cpu: nullable(real),
  memory: nullable(real),
  firstSeen: int,
  updatedAt: int,
});
type ItemRow = ReturnType<typeof itemRow.finish>;

export type HostItems = {
  containers: ContainerRow[];
  units: UnitRow[];
  /** Items of no service (dismissed or not), for `discoveredOf`. */
  unowned: ItemRow[];
};

/** A host's containers and units not gone, sorted by name, each with its service. */
export function itemsOf(db: DatabaseSync, m: Membership, host: string): HostItems {
  const rows = all(
    db,
    `SELECT id, kind, name, state, sub_state, health, restarts, exit_code, image, started_at, labels, cpu,
       memory, first_seen, updated_at
     FROM host_items INDEXED BY host_items_live WHERE host = ? AND gone_at IS NULL ORDER BY name`,
    itemRow,
    host,
  );
  const out: HostItems = { containers: [], units: [], unowned: [] };
  for (const r of rows) {
    const service = m.serviceOf(host, r.kind, r.name, r.labels ?? {});
    if (service === null) out.unowned.push(r);
    if (r.kind === 'container') {
      out.containers.push({
        name: r.name,
        image: r.image ?? '',
        state: r.state,
        health: r.health,
        restarts: r.restarts,
        exitCode: r.exitCode,
        startedAt: r.startedAt,
        cpu: r.cpu,
        memory: r.memory,
        service,
        updatedAt: r.updatedAt,
      });
    } else {
      out.units.push({
        name: r.name,
        state: r.state,
        subState: r.subState ?? '',
        restarts: r.restarts,
        cpu: r.cpu,
        memory: r.memory,
        service,
        updatedAt: r.updatedAt,
      });
    }
  }
  return out;
}

const idRow = mapper({ id: text });

/** The host's discovered items: of no service and not dismissed; containers, then units, each by name. */
export function discoveredOf(db: DatabaseSync, host: string, items: HostItems): DiscoveredItem[] {
  const dismissed = new Set(all(db, DISMISSED_LIVE_SQL, idRow, host).map((r) => r.id));
  return (
    items.unowned
      .filter((r) => !dismissed.has(r.id))
      // Rows come sorted by name; the sort is stable.
      .sort((a, b) => (a.kind === b.kind ? 0 : a.kind === 'container' ? -1 : 1))
      .map((r) => ({
        id: r.id,
        host,
        kind: r.kind,
        name: r.name,
        image: r.kind === 'container' ? (r.image ?? '') : null,
        state: r.state,
        firstSeen: r.firstSeen,
      }))
  );
}

/** Whether the host ever had this container or unit: listed now or lately, or in its rollups. */
export function hadItem(db: DatabaseSync, host: string, k: Kind, name: string): boolean {
  return exists(
    db,
    `SELECT 1 FROM host_items WHERE host = ? AND kind = ? AND name = ?
     UNION ALL SELECT 1 FROM item_rollups WHERE host = ? AND kind = ? AND name = ? LIMIT 1`,
    host,
    k,
    name,
    host,
    k,
    name,
  );
}
