import type { DatabaseSync } from 'node:sqlite';
import { all, int, json, mapper, nullable, oneOf, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Membership } from './membership.ts';

/**
 * How many containers and units each host has (not gone) and how many of them are discovered items (of
 * no service, not dismissed): what the hosts list shows. Kept in `host_item_counts` by the writer jobs
 * that change them, in the same transaction: ingest of a sample's items, a dismissal, a host monitored.
 * The discovered count also depends on the services (a service named like a container, one created
 * later): each row notes the membership it was counted under, and a row whose membership no longer
 * holds is not used; the host's items are counted instead, until its next sample keeps a new count.
 * So the list reads a row per host, and counts items only of hosts whose services changed meanwhile.
 */
export type ItemCounts = { containers: number; units: number; discovered: number };

type Kind = 'container' | 'unit';
const kind = oneOf<Kind>(['container', 'unit']);

/** A container or unit not gone, as counting needs it. */
export type CountedItem = { kind: Kind; name: string; labels: Record<string, string> };

/** The one rule: every item counts for its kind, and as discovered when it is of no service and not dismissed. */
export function countItems(
  m: Membership,
  host: string,
  items: Iterable<CountedItem>,
  dismissed: ReadonlySet<string>,
): ItemCounts {
  const counts: ItemCounts = { containers: 0, units: 0, discovered: 0 };
  for (const item of items) {
    if (item.kind === 'container') counts.containers++;
    else counts.units++;
    if (
      !dismissed.has(itemKey(item.kind, item.name)) &&
      m.serviceOf(host, item.kind, item.name, item.labels) === null
    )
      counts.discovered++;
  }
  return counts;
}

/** How an item is told apart among its host's. */
export const itemKey = (k: Kind, name: string) => `${k}\0${name}`;

const keyRow = mapper({ kind, name: text });

/**
 * The host's items not gone that are dismissed: from its live items (each sample reads this), never
 * the gone ones. Exported for the test of its plan.
 */
export const DISMISSED_LIVE_SQL = `SELECT i.kind, i.name, i.id FROM host_items AS i INDEXED BY host_items_live
  JOIN discovered_dismissed AS d ON d.id = i.id WHERE i.host = ? AND i.gone_at IS NULL`;

/** The host's dismissed items not gone, as `itemKey`s: those counting needs. */
export function dismissedOf(db: DatabaseSync, host: string): Set<string> {
  const rows = all(db, DISMISSED_LIVE_SQL, keyRow, host);
  return new Set(rows.map((r) => itemKey(r.kind, r.name)));
}

const storedItemRow = mapper({ kind, name: text, labels: nullable(json<Record<string, string>>()) });

/** The host's items as stored now, counted. */
function countStored(db: DatabaseSync, m: Membership, host: string): ItemCounts {
  const items = all(
    db,
    'SELECT kind, name, labels FROM host_items INDEXED BY host_items_live WHERE host = ? AND gone_at IS NULL',
    storedItemRow,
    host,
  ).map((r) => ({ kind: r.kind, name: r.name, labels: r.labels ?? {} }));
  return countItems(m, host, items, dismissedOf(db, host));
}

/** Keeps the host's counts under its membership now; the row is written only when something changed. */
export function keepItemCounts(db: DatabaseSync, m: Membership, host: string, counts: ItemCounts): void {
  statement(
    db,
    `INSERT INTO host_item_counts (host, containers, units, discovered, membership) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (host) DO UPDATE SET containers = excluded.containers, units = excluded.units,
       discovered = excluded.discovered, membership = excluded.membership
     WHERE (containers, units, discovered, membership)
       IS NOT (excluded.containers, excluded.units, excluded.discovered, excluded.membership)`,
  ).run(host, counts.containers, counts.units, counts.discovered, m.stampOf(host));
}

/** Counts the host's stored items again and keeps the counts: after a dismissal, or a link to a service. */
export function recountItems(db: DatabaseSync, m: Membership, host: string): void {
  keepItemCounts(db, m, host, countStored(db, m, host));
}

const keptRow = mapper({ host: text, containers: int, units: int, discovered: int, membership: text });

/** The counts of these hosts: those kept while their membership holds, else counted from the items. */
export function itemCountsOf(
  db: DatabaseSync,
  m: Membership,
  hosts: Iterable<string>,
): Map<string, ItemCounts> {
  const kept = new Map(
    all(db, 'SELECT host, containers, units, discovered, membership FROM host_item_counts', keptRow).map(
      (r) => [r.host, r],
    ),
  );
  const out = new Map<string, ItemCounts>();
  for (const host of hosts) {
    const row = kept.get(host);
    out.set(
      host,
      row && row.membership === m.stampOf(host)
        ? { containers: row.containers, units: row.units, discovered: row.discovered }
        : countStored(db, m, host),
    );
  }
  return out;
}
