import { createHash } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { ContainerSample, SampleFrame, UnitSample } from '../../protocol/agent.ts';
import { all, bool, int, mapper, nullable, one, oneOf, real, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { restartsSince } from './container-alerts.ts';
import type { UnreadableItems } from './decode.ts';
import { type CountedItem, countItems, dismissedOf, itemKey, keepItemCounts } from './item-counts.ts';
import type { Membership } from './membership.ts';
import { addItemSample } from './rollups.ts';

/**
 * Containers and systemd units of a sample → `host_items` (as last seen; a row is written when it
 * changed, see `ITEM_CPU_STEP`), their rollups, and what
 * happened to them since the previous sample as `host_events` (likely-cause evidence): a container
 * restarted or was killed for memory, a unit failed or was restarted by systemd. A container of the
 * same name running a new image is handed back for the agent deploy (agent-deploys.ts).
 */

export type ItemKind = 'container' | 'unit';

/** The id of a container or unit: stable across samples and restarts of the server. */
export function itemId(host: string, kind: ItemKind, name: string): string {
  return createHash('sha256').update(`${host}\0${kind}\0${name}`).digest('hex').slice(0, 16);
}

/** A container or unit as `host_items` holds it. */
type ItemFields = {
  /** The container's id (the Engine API's); null for units. */
  containerId: string | null;
  state: string;
  subState: string | null;
  health: string | null;
  restarts: number;
  exitCode: number | null;
  oomKilled: boolean;
  image: string | null;
  imageId: string | null;
  startedAt: number | null;
  /** JSON. */
  labels: string | null;
  cpu: number | null;
  memory: number | null;
};

type StoredItem = ItemFields & { kind: ItemKind; name: string; goneAt: number | null };

const storedRow = mapper({
  kind: oneOf<ItemKind>(['container', 'unit']),
  name: text,
  containerId: nullable(text),
  state: text,
  subState: nullable(text),
  health: nullable(text),
  restarts: int,
  exitCode: nullable(int),
  oomKilled: bool,
  image: nullable(text),
  imageId: nullable(text),
  startedAt: nullable(int),
  labels: nullable(text),
  cpu: nullable(real),
  memory: nullable(real),
  goneAt: nullable(int),
});

/** A container that runs another image than when last seen. */
export type ImageChange = { container: ContainerSample; service: string | null; before: StoredItem };

export type HostEvent = {
  kind: 'restart' | 'oom' | 'unit_failed' | 'unit_restart';
  subject: string;
  service: string | null;
  detail: string;
};

const ITEM_COLUMNS = `kind, name, container_id, state, sub_state, health, restarts, exit_code, oom_killed, image,
  image_id, started_at, labels, cpu, memory, gone_at`;
/** The host's items not gone, along their index (migration 024); exported for the test of its plan. */
export const LIVE_ITEMS_SQL = `SELECT ${ITEM_COLUMNS} FROM host_items INDEXED BY host_items_live
  WHERE host = ? AND gone_at IS NULL`;
/** One item by its key: a gone one the sample lists again (it came back), or none (a new one). */
export const ITEM_BY_KEY_SQL = `SELECT ${ITEM_COLUMNS} FROM host_items WHERE host = ? AND kind = ? AND name = ?`;

const upsertSql = `INSERT INTO host_items (host, kind, name, id, container_id, state, sub_state, health, restarts,
    exit_code, oom_killed, image, image_id, started_at, labels, cpu, memory, first_seen, updated_at, gone_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)
  ON CONFLICT(host, kind, name) DO UPDATE SET container_id = excluded.container_id, state = excluded.state, sub_state = excluded.sub_state,
    health = excluded.health, restarts = excluded.restarts, exit_code = excluded.exit_code,
    oom_killed = excluded.oom_killed, image = excluded.image, image_id = excluded.image_id,
    started_at = excluded.started_at, labels = excluded.labels, cpu = excluded.cpu, memory = excluded.memory,
    updated_at = excluded.updated_at, gone_at = NULL`;

/**
 * The stored CPU and memory of a container or unit move only by this much or more: points of one CPU,
 * and a share of the stored memory. Their charts get every sample (`item_rollups`); the row, which the
 * host page lists, is written when something else changed or when they moved this much, so a host
 * whose hundreds of units idle costs a sample no row writes.
 */
export const ITEM_CPU_STEP = 1;
export const ITEM_MEMORY_STEP = 0.01;

function moved(before: number | null, now: number | null, step: number): boolean {
  if (before === null || now === null) return before !== now;
  return Math.abs(now - before) >= step;
}

/** Whether the row must be written: a new item, one back from gone, a change, or usage that moved. */
function changed(before: StoredItem | undefined, now: ItemFields): boolean {
  if (!before || before.goneAt !== null) return true;
  return (
    before.containerId !== now.containerId ||
    before.state !== now.state ||
    before.subState !== now.subState ||
    before.health !== now.health ||
    before.restarts !== now.restarts ||
    before.exitCode !== now.exitCode ||
    before.oomKilled !== now.oomKilled ||
    before.image !== now.image ||
    before.imageId !== now.imageId ||
    before.startedAt !== now.startedAt ||
    before.labels !== now.labels ||
    moved(before.cpu, now.cpu, ITEM_CPU_STEP) ||
    moved(before.memory, now.memory, Math.max(1, (before.memory ?? 0) * ITEM_MEMORY_STEP))
  );
}

const containerFields = (c: ContainerSample): ItemFields => ({
  containerId: c.id,
  state: c.state,
  subState: null,
  health: c.health,
  restarts: c.restarts,
  exitCode: c.exitCode,
  oomKilled: c.oomKilled,
  image: c.image,
  imageId: c.imageId,
  startedAt: c.startedAt,
  labels: JSON.stringify(c.labels),
  cpu: c.cpu,
  memory: c.memory,
});

const unitFields = (u: UnitSample): ItemFields => ({
  containerId: null,
  state: u.state,
  subState: u.subState,
  health: null,
  restarts: u.restarts,
  exitCode: null,
  oomKilled: false,
  image: null,
  imageId: null,
  startedAt: null,
  labels: null,
  cpu: u.cpu,
  memory: u.memory,
});

/**
 * Stores one sample's containers and units (each list null when the host has no runtime or no
 * systemd: then nothing of that kind is touched) and returns the events and image changes it shows.
 * `updated_at` is when the row last changed. Those the sample listed but the server could not read
 * (`unreadable`: a newer agent's state) are there as last seen: not gone, counted, no row written, no
 * events; one not listed before (or gone) is left as it is until a sample lists it readably.
 */
export function applyItems(
  db: DatabaseSync,
  host: string,
  ts: number,
  containers: ContainerSample[] | null,
  units: UnitSample[] | null,
  membership: Membership,
  unreadable: UnreadableItems = { containers: [], units: [] },
): { events: HostEvent[]; imageChanges: ImageChange[] } {
  const events: HostEvent[] = [];
  const imageChanges: ImageChange[] = [];
  if (containers === null && units === null) return { events, imageChanges };
  // The live items, then a gone one only when the sample lists it again: a sample costs what it
  // carries, not the items the host had and lost today.
  const stored = new Map<string, StoredItem>();
  for (const row of all(db, LIVE_ITEMS_SQL, storedRow, host)) stored.set(itemKey(row.kind, row.name), row);
  const storedOf = (kind: ItemKind, name: string, key: string) =>
    stored.get(key) ?? one(db, ITEM_BY_KEY_SQL, storedRow, host, kind, name);
  const upsert = statement(db, upsertSql);
  const write = (kind: ItemKind, name: string, fields: ItemFields) =>
    upsert.run(
      host,
      kind,
      name,
      itemId(host, kind, name),
      fields.containerId,
      fields.state,
      fields.subState,
      fields.health,
      fields.restarts,
      fields.exitCode,
      fields.oomKilled ? 1 : 0,
      fields.image,
      fields.imageId,
      fields.startedAt,
      fields.labels,
      fields.cpu,
      fields.memory,
      ts,
      ts,
    );
  const seen = new Set<string>();
  /** The host's items not gone after this sample, for its counts. */
  const live: CountedItem[] = [];

  for (const c of containers ?? []) {
    const key = itemKey('container', c.name);
    if (seen.has(key)) continue;
    seen.add(key);
    live.push({ kind: 'container', name: c.name, labels: c.labels });
    const before = storedOf('container', c.name, key);
    const service = membership.serviceOf(host, 'container', c.name, c.labels);
    if (before) {
      for (const e of containerEvents(before, c, ts)) events.push({ ...e, subject: c.name, service });
      if (before.imageId !== null && before.imageId !== c.imageId)
        imageChanges.push({ container: c, service, before });
    }
    const fields = containerFields(c);
    if (changed(before, fields)) write('container', c.name, fields);
    addItemSample(db, host, 'container', c.name, ts, c.cpu, c.memory);
  }

  for (const u of units ?? []) {
    const key = itemKey('unit', u.name);
    if (seen.has(key)) continue;
    seen.add(key);
    live.push({ kind: 'unit', name: u.name, labels: {} });
    const before = storedOf('unit', u.name, key);
    if (before) {
      const found = unitEvents(before, u);
      if (found.length > 0) {
        const service = membership.serviceOf(host, 'unit', u.name, {});
        for (const e of found) events.push({ ...e, subject: u.name, service });
      }
    }
    const fields = unitFields(u);
    if (changed(before, fields)) write('unit', u.name, fields);
    addItemSample(db, host, 'unit', u.name, ts, u.cpu, u.memory);
  }

  // Gone: not in a list the sample gave. A null list says nothing of its kind.
  const gone = statement(
    db,
    'UPDATE host_items SET gone_at = ? WHERE host = ? AND kind = ? AND name = ? AND gone_at IS NULL',
  );
  const present = new Set([
    ...unreadable.containers.map((name) => itemKey('container', name)),
    ...unreadable.units.map((name) => itemKey('unit', name)),
  ]);
  for (const item of stored.values()) {
    const key = itemKey(item.kind, item.name);
    if (seen.has(key)) continue;
    const listed = item.kind === 'container' ? containers : units;
    if (listed === null || present.has(key))
      live.push({ kind: item.kind, name: item.name, labels: labelsOf(item.labels) });
    else gone.run(ts, host, item.kind, item.name);
  }
  keepItemCounts(db, membership, host, countItems(membership, host, live, dismissedOf(db, host)));
  return { events, imageChanges };
}

function labelsOf(json: string | null): Record<string, string> {
  return json === null ? {} : (JSON.parse(json) as Record<string, string>);
}

/** A sample older than the host's latest: its containers and units add to their charts only. */
export function addItemSamples(db: DatabaseSync, host: string, sample: SampleFrame): void {
  for (const c of sample.containers ?? [])
    addItemSample(db, host, 'container', c.name, sample.ts, c.cpu, c.memory);
  for (const u of sample.units ?? []) addItemSample(db, host, 'unit', u.name, sample.ts, u.cpu, u.memory);
}

type Found = Omit<HostEvent, 'subject' | 'service'>;

function containerEvents(before: StoredItem, c: ContainerSample, ts: number): Found[] {
  const found: Found[] = [];
  // The restart loop alert's rule (container-alerts.ts), so that an incident it opens has its evidence.
  const restarted = restartsSince({ ...before, id: before.containerId, goneSince: before.goneAt }, c, ts);
  if (restarted > 0) {
    const count = c.restarts > before.restarts ? ` (restart count ${c.restarts})` : '';
    found.push({ kind: 'restart', detail: `container restarted${count}` });
  }
  if (c.oomKilled && !before.oomKilled) {
    found.push({ kind: 'oom', detail: 'container killed: out of memory' });
  }
  return found;
}

function unitEvents(before: StoredItem, u: UnitSample): Found[] {
  const found: Found[] = [];
  if (u.state === 'failed' && before.state !== 'failed') {
    found.push({ kind: 'unit_failed', detail: `unit failed (${u.subState})` });
  }
  if (u.restarts > before.restarts) {
    found.push({ kind: 'unit_restart', detail: `unit restarted by systemd (${u.restarts} restarts)` });
  }
  return found;
}

/** Writes host events (likely-cause evidence) of one sample. */
export function insertHostEvents(db: DatabaseSync, host: string, ts: number, events: HostEvent[]): void {
  if (events.length === 0) return;
  const insert = statement(
    db,
    'INSERT INTO host_events (host, ts, kind, subject, service, detail) VALUES (?, ?, ?, ?, ?, ?)',
  );
  for (const e of events) insert.run(host, ts, e.kind, e.subject, e.service, e.detail);
}
