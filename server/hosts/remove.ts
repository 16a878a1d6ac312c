import type { DatabaseSync } from 'node:sqlite';
import { liveKeys } from '../../protocol/live.ts';
import type { CheckEngine } from '../checks/engine.ts';
import { deleteInJob } from '../checks/manage.ts';
import { commandChecksOf, dropServiceIfEmpty } from '../checks/store.ts';
import type { LiveConfig } from '../config/service.ts';
import type { Deps } from '../deps.ts';
import { conflict, notFound } from '../problem.ts';
import { deleting, PRUNE_CHUNK_ROWS, type PrunePart, pruneInChunks } from '../store/pruning.ts';
import { all, exists, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { fileHostNames, knownHosts } from './store.ts';

/**
 * Removing a host (`DELETE /api/v1/hosts/{name}`, docs/hosts.md "Removing a host"). One writer job
 * revokes its token, closes its alerts (`host.removed`, so its incident resolves as a removed check's
 * does), deletes its command checks, its links to services and its items; its series, host events and
 * agent logs, a host of months holding a million rows, then go in chunked jobs as housekeeping deletes
 * after the answer (`hosts_removed` marks them until done, and a name there cannot be added again
 * meanwhile): on a 2-core machine under load, 978,000 rows took 35 s in 197 jobs.
 */

const nameRow = mapper({ name: text });
const checkRow = mapper({ name: text, managed: text });

/**
 * The file and panel checks whose `from` names `host` (its own command checks go with it): those stored,
 * and those of the mon.toml in force, which a reload stores a moment after it swaps the file in.
 */
function checksFrom(db: DatabaseSync, config: LiveConfig, host: string): { name: string; managed: string }[] {
  const stored = all(
    db,
    `SELECT name, CASE managed WHEN 1 THEN 'mon.toml' ELSE 'panel' END AS managed FROM checks
     WHERE host_defined = 0 AND json_extract(body, '$.from') = ?`,
    checkRow,
    host,
  );
  const named = new Set(stored.map((c) => c.name));
  const coming = config.checks
    .filter((c) => c.body.from === host && !named.has(c.body.name))
    .map((c) => ({ name: c.body.name, managed: 'mon.toml' }));
  return [...stored, ...coming].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/**
 * Removes `name` in one writer job (its data goes next: `purgeRemovedHosts`). 404 for a host mon does not know;
 * 409 for a host of mon.toml, or one that file or panel checks run from (naming them). `removed` runs
 * once the removal commits (the silence watch and a waiting poll forget the host, the purge starts).
 */
export async function removeHost(
  deps: Deps,
  engine: CheckEngine,
  name: string,
  removed: (host: string) => void,
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.writer.run((db, tx) => {
    const config = deps.config.current();
    if (fileHostNames(config).has(name)) {
      throw conflict(
        `the host "${name}" is defined in mon.toml (a [[host]] table or a service's hosts); take it out of the file to remove it`,
      );
    }
    if (!knownHosts(db, config).has(name)) throw notFound(`no host ${name}`);
    const from = checksFrom(db, config, name);
    if (from.length > 0) {
      const named = from.map((c) => `"${c.name}" (${c.managed})`).join(', ');
      throw conflict(`checks run from the host "${name}": ${named}; change their from or delete them first`);
    }
    // Its checks.toml's command checks: nothing else can take them out once the host is gone.
    for (const rec of commandChecksOf(db, name)) deleteInJob(engine, tx, rec, now);
    deps.events.dispatch(tx, [{ type: 'host.removed', host: name, ts: now }], now);
    const services = all(db, 'SELECT service AS name FROM service_hosts WHERE host = ?', nameRow, name);
    statement(db, 'DELETE FROM service_hosts WHERE host = ?').run(name);
    for (const s of services) dropServiceIfEmpty(db, s.name);
    statement(
      db,
      'DELETE FROM discovered_dismissed WHERE id IN (SELECT id FROM host_items WHERE host = ?)',
    ).run(name);
    for (const table of ['host_items', 'host_alert_states', 'host_item_counts', 'agent_batches']) {
      statement(db, `DELETE FROM ${table} WHERE host = ?`).run(name);
    }
    statement(db, 'DELETE FROM hosts WHERE name = ?').run(name);
    statement(db, 'INSERT INTO hosts_removed (name, removed_at) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
      name,
      now,
    );
    tx.invalidate(liveKeys.overview, ...services.map((s) => liveKeys.service(s.name)));
    tx.afterCommit(() => removed(name));
  });
}

/** Whether `name` was removed and its data is still being deleted (it cannot be added meanwhile). */
export function beingRemoved(db: DatabaseSync, name: string): boolean {
  return exists(db, 'SELECT 1 FROM hosts_removed WHERE name = ?', name);
}

/**
 * The parts that delete what removed hosts left (series, host events, agent logs), each along its
 * host's key, and last their `hosts_removed` rows. Housekeeping's hourly pass takes them in too.
 */
export function removedHostParts(db: DatabaseSync): PrunePart[] {
  const parts: PrunePart[] = [];
  for (const { name } of all(db, 'SELECT name FROM hosts_removed ORDER BY name', nameRow)) {
    parts.push(
      deleting(
        `DELETE FROM host_rollups WHERE (host, res, bucket) IN
           (SELECT host, res, bucket FROM host_rollups WHERE host = ? LIMIT ?)`,
        name,
      ),
      deleting(
        `DELETE FROM item_rollups WHERE (host, kind, name, res, bucket) IN
           (SELECT host, kind, name, res, bucket FROM item_rollups WHERE host = ? LIMIT ?)`,
        name,
      ),
      deleting(
        'DELETE FROM host_events WHERE id IN (SELECT id FROM host_events WHERE host = ? LIMIT ?)',
        name,
      ),
      deleting('DELETE FROM agent_logs WHERE id IN (SELECT id FROM agent_logs WHERE host = ? LIMIT ?)', name),
      // Last: the name may be added again once its data is gone.
      deleting('DELETE FROM hosts_removed WHERE name = ? AND ? > 0', name),
    );
  }
  return parts;
}

/** Deletes what removed hosts left, in chunked writer jobs; the rows deleted and the jobs it took. */
export function purgeRemovedHosts(
  deps: Deps,
  chunkRows = PRUNE_CHUNK_ROWS,
): Promise<{ deleted: number; jobs: number }> {
  return pruneInChunks(deps.store.writer, removedHostParts, chunkRows);
}
