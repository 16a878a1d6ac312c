import type { ContainerRow, DiscoveredItem, UnitRow } from '../../../../protocol/hosts.ts';

/**
 * Which containers, units and discovered items a host page shows first. A big host reports hundreds
 * (up to 15,000): the page lists the first SHOWN in this order, a filter reaches the rest.
 */

export const SHOWN = 50;

/** A container dead, exited with an error, unhealthy or restarting; a unit failed or restarting. */
export function inTrouble(row: ContainerRow | UnitRow): boolean {
  if ('image' in row) {
    return (
      row.health === 'unhealthy' ||
      row.state === 'dead' ||
      row.state === 'restarting' ||
      (row.state === 'exited' && row.exitCode !== 0)
    );
  }
  return row.state === 'failed' || row.subState === 'auto-restart';
}

const desc = (a: number | null, b: number | null) => (b ?? -1) - (a ?? -1);
const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Those in trouble first, then by CPU, then by memory, both largest first; then by name. */
export function orderItems<T extends ContainerRow | UnitRow>(rows: readonly T[]): T[] {
  const trouble = new Map(rows.map((r) => [r, inTrouble(r)]));
  return [...rows].sort(
    (a, b) =>
      Number(trouble.get(b)) - Number(trouble.get(a)) ||
      desc(a.cpu, b.cpu) ||
      desc(a.memory, b.memory) ||
      byName(a, b),
  );
}

/** The newest first (what appeared lately is what one has not looked at yet); then by name. */
export function orderDiscovered(items: readonly DiscoveredItem[]): DiscoveredItem[] {
  return [...items].sort((a, b) => b.firstSeen - a.firstSeen || byName(a, b));
}

/** Whether any of `words` holds the filter text, ignoring case; an empty filter matches all. */
export function matches(filter: string, words: readonly (string | null)[]): boolean {
  const needle = filter.trim().toLowerCase();
  return needle === '' || words.some((w) => w?.toLowerCase().includes(needle));
}

/** The words an item is found by: its name, image, state and service. */
export function itemWords(row: ContainerRow | UnitRow): (string | null)[] {
  return 'image' in row
    ? [row.name, row.image, row.state, row.health, row.service]
    : [row.name, row.state, row.subState, row.service];
}

export const discoveredWords = (item: DiscoveredItem) => [item.name, item.image, item.kind, item.state];
