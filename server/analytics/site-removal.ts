import type { DatabaseSync } from 'node:sqlite';
import { liveKeys } from '../../protocol/live.ts';
import { dropServiceIfEmpty } from '../checks/store.ts';
import type { Deps } from '../deps.ts';
import { conflict, notFound } from '../problem.ts';
import { deleting, PRUNE_CHUNK_ROWS, type PrunePart, pruneInChunks } from '../store/pruning.ts';
import { all, exists, mapper, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { deleteErrorGroups } from './site-rows.ts';

/**
 * Removing a site (`DELETE /api/v1/sites/{domain}`, docs/analytics.md "Removing a site"), in the shape
 * of host removal (server/hosts/remove.ts): one writer job deletes the `sites` row (and its service,
 * when that was a panel service left with nothing) and marks the domain in `sites_removed`; its
 * analytics rows, a busy site of years holding millions, then go in chunked jobs as housekeeping
 * deletes, after the answer. A domain marked cannot be added again until its data is gone.
 */

const serviceRow = mapper({ service: text });
const domainRow = mapper({ domain: text });

/**
 * Removes the site `domain` added through the API. 404 for a domain that is no site; 409 for a site
 * mon.toml names. `forget` drops it from the known sites inside the job (tracker events applied after
 * it are dropped), `removed` runs once the removal commits (memory forgets it, its data goes).
 */
export async function removeSite(
  deps: Deps,
  domain: string,
  hooks: { forget(domain: string): void; undo(): void; removed(domain: string): void },
): Promise<void> {
  const now = deps.clock.now();
  await deps.store.writer.run((db, tx) => {
    const inFile = deps.config.current().services.find((s) => s.sites.includes(domain));
    if (inFile) {
      throw conflict(
        `the site ${domain} belongs to the service "${inFile.name}" in mon.toml; take it out of the file's sites to remove it`,
      );
    }
    const site = one(db, 'SELECT service FROM sites WHERE domain = ?', serviceRow, domain);
    if (!site) throw notFound(`no site ${domain}`);
    statement(db, 'DELETE FROM sites WHERE domain = ?').run(domain);
    // The service stays with its checks, hosts and incidents; a panel service held by nothing else goes,
    // as it does when its last check is deleted.
    dropServiceIfEmpty(db, site.service);
    statement(db, 'INSERT INTO sites_removed (domain, removed_at) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
      domain,
      now,
    );
    hooks.forget(domain);
    tx.onRollback(hooks.undo);
    tx.invalidate(liveKeys.service(site.service), liveKeys.overview, liveKeys.analytics);
    tx.afterCommit(() => hooks.removed(domain));
  });
}

/** Whether `domain` was removed and its data is still being deleted (it cannot be added meanwhile). */
export function siteBeingRemoved(db: DatabaseSync, domain: string): boolean {
  return exists(db, 'SELECT 1 FROM sites_removed WHERE domain = ?', domain);
}

/** A part deleting `site`'s rows of `table` along its primary key (`key`, which starts with the site). */
const siteRows = (table: string, key: string, site: string): PrunePart =>
  deleting(
    `DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE site = ? LIMIT ?)`,
    site,
  );

/**
 * The parts that delete every analytics row of `site`: raw visits and page views, rollups of every
 * resolution (hours, days, blocks of days), Web Vitals, error groups with their counts, the counts of
 * values and what says which blocks are written. Blocks last: housekeeping writes them from days.
 */
export function siteDataParts(site: string): PrunePart[] {
  return [
    siteRows('analytics_sessions', 'site, visitor, started_at', site),
    siteRows('analytics_views', 'site, visitor, page, ts', site),
    siteRows('analytics_totals', 'site, res, at', site),
    siteRows('analytics_dims', 'site, res, at, list, value', site),
    siteRows('analytics_vitals', 'site, res, at, page, metric, bucket', site),
    siteRows('analytics_dim_values', 'site, res, at, list', site),
    (db, limit) => deleteErrorGroups(db, site, limit),
    siteRows('analytics_dim_blocks', 'site, res, at, list', site),
    siteRows('analytics_blocks_written', 'site, res', site),
  ];
}

/**
 * `parts`, each doing nothing once `still` no longer holds. A pass or a purge lists its parts in its
 * first job and deletes over many jobs after, yielding between them: each job asks again, inside
 * itself, whether the site is still to go (a site purged meanwhile may have been added again, and its
 * new data stored).
 */
export function whileStill(still: (db: DatabaseSync) => boolean, parts: PrunePart[]): PrunePart[] {
  return parts.map((part) => (db, limit) => (still(db) ? part(db, limit) : 0));
}

/** The parts that delete what removed sites left, and last each one's `sites_removed` row. */
export function removedSiteParts(db: DatabaseSync): PrunePart[] {
  const parts: PrunePart[] = [];
  for (const { domain } of all(db, 'SELECT domain FROM sites_removed ORDER BY domain', domainRow)) {
    const removed = [
      ...siteDataParts(domain),
      // Last: the domain may be added again once its data is gone.
      deleting('DELETE FROM sites_removed WHERE domain = ? AND ? > 0', domain),
    ];
    parts.push(...whileStill((db) => siteBeingRemoved(db, domain), removed));
  }
  return parts;
}

/** Deletes what removed sites left, in chunked writer jobs; the rows deleted and the jobs it took. */
export function purgeRemovedSites(
  deps: Deps,
  chunkRows = PRUNE_CHUNK_ROWS,
): Promise<{ deleted: number; jobs: number }> {
  return pruneInChunks(deps.store.writer, removedSiteParts, chunkRows);
}
