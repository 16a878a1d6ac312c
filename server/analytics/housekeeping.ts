import type { DatabaseSync } from 'node:sqlite';
import type { Deps } from '../deps.ts';
import { housekeeping } from '../housekeeping.ts';
import { deleting, PRUNE_CHUNK_ROWS, type PrunePart, pruneInChunks } from '../store/pruning.ts';
import { all, int, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { writeDayBlocks } from './block-writes.ts';
import { RAW_RETENTION_MS } from './retention.ts';
import { removedSiteParts } from './site-removal.ts';
import { deleteErrorGroups, sitesIn } from './site-rows.ts';
import { unlistedSiteParts } from './site-unlisted.ts';
import { VALUE_COUNTS_KEPT_MS } from './value-caps.ts';
import type { VisitorIds } from './visitors.ts';

const visitRow = mapper({ site: text, visitor: text, startedAt: int });

/**
 * Deletes visits that started before `cutoff`, oldest first, with the page views of their visitors (a
 * visitor's views of the day go with its first visit: the views table has no index by time), until
 * `limit` rows are deleted or, by the views of one visitor, a few more. Returns the rows deleted.
 */
function pruneVisits(db: DatabaseSync, cutoff: number, limit: number): number {
  const visits = all(
    db,
    'SELECT site, visitor, started_at FROM analytics_sessions WHERE started_at < ? ORDER BY started_at LIMIT ?',
    visitRow,
    cutoff,
    limit,
  );
  const views = statement(db, 'DELETE FROM analytics_views WHERE site = ? AND visitor = ?');
  const visit = statement(
    db,
    'DELETE FROM analytics_sessions WHERE site = ? AND visitor = ? AND started_at = ?',
  );
  let deleted = 0;
  for (const { site, visitor, startedAt } of visits) {
    deleted += Number(views.run(site, visitor).changes) + Number(visit.run(site, visitor, startedAt).changes);
    if (deleted >= limit) break;
  }
  return deleted;
}

/**
 * Everything a pass deletes (retention.ts), in parts, each bounded by its `limit`. Hourly rollups go
 * site by site along their primary keys, oldest first. Single pages' Web Vitals days are found from
 * `pagesFrom` on: days before it were pruned by an earlier pass, and the days of every page kept
 * for good would otherwise be read again at each pass.
 */
function partsOf(db: DatabaseSync, now: number, pagesFrom: number): PrunePart[] {
  const cutoff = now - RAW_RETENTION_MS;
  const parts: PrunePart[] = [
    (db, limit) => pruneVisits(db, cutoff, limit),
    // A small table: a period's count for each list, of the last two days or so.
    deleting(
      `DELETE FROM analytics_dim_values WHERE (site, res, at, list) IN
         (SELECT site, res, at, list FROM analytics_dim_values WHERE at < ? LIMIT ?)`,
      now - VALUE_COUNTS_KEPT_MS,
    ),
    deleting(
      `DELETE FROM js_error_counts WHERE (group_id, res, at) IN
         (SELECT group_id, res, at FROM js_error_counts WHERE res = 'h' AND at < ? LIMIT ?)`,
      cutoff,
    ),
  ];
  // Groups not seen since the cutoff, with their counts (daily ones and those of blocks of days: the
  // hourly ones are gone by then).
  for (const site of sitesIn(db, 'js_error_groups')) {
    parts.push((db, limit) => deleteErrorGroups(db, site, limit, cutoff));
  }
  for (const site of sitesIn(db, 'analytics_totals')) {
    parts.push(
      deleting(
        `DELETE FROM analytics_totals WHERE (site, res, at) IN
           (SELECT site, res, at FROM analytics_totals WHERE site = ? AND res = 'h' AND at < ? LIMIT ?)`,
        site,
        cutoff,
      ),
    );
  }
  for (const site of sitesIn(db, 'analytics_dims')) {
    parts.push(
      deleting(
        `DELETE FROM analytics_dims WHERE (site, res, at, list, value) IN
           (SELECT site, res, at, list, value FROM analytics_dims WHERE site = ? AND res = 'h' AND at < ? LIMIT ?)`,
        site,
        cutoff,
      ),
    );
  }
  for (const site of sitesIn(db, 'analytics_vitals')) {
    const key = 'site, res, at, page, metric, bucket';
    parts.push(
      deleting(
        `DELETE FROM analytics_vitals WHERE (${key}) IN
           (SELECT ${key} FROM analytics_vitals WHERE site = ? AND res = 'h' AND at < ? LIMIT ?)`,
        site,
        cutoff,
      ),
      deleting(
        `DELETE FROM analytics_vitals WHERE (${key}) IN (SELECT ${key} FROM analytics_vitals
           WHERE site = ? AND res = 'd' AND at >= ? AND at < ? AND page <> '' LIMIT ?)`,
        site,
        pagesFrom,
        cutoff,
      ),
    );
  }
  return parts;
}

/**
 * Deletes analytics data past RAW_RETENTION_MS (retention.ts) at `now`: raw sessions and page views,
 * hourly rollups, single pages' Web Vitals days, error groups not seen since; and the counts of values
 * of periods that began more than VALUE_COUNTS_KEPT_MS ago (value-caps.ts); what removed sites left,
 * and all of a site mon.toml stopped naming once unlisted for as long (site-unlisted.ts). The pass runs in writer
 * jobs of at most `chunkRows` rows and `PRUNE_CHUNK_MS`, yielding to the event loop between them.
 * Resolves with the rows deleted and the jobs it took.
 */
export async function pruneAnalytics(
  deps: Deps,
  options: { now: number; pagesFrom?: number; chunkRows?: number },
): Promise<{ deleted: number; jobs: number }> {
  const chunkRows = options.chunkRows ?? PRUNE_CHUNK_ROWS;
  return pruneInChunks(
    deps.store.writer,
    (db) => [
      ...partsOf(db, options.now, options.pagesFrom ?? 0),
      ...removedSiteParts(db),
      ...unlistedSiteParts(db, deps.config, options.now),
    ],
    chunkRows,
  );
}

/**
 * A minute after start, then every hour (server/housekeeping.ts): the visitor-id salts older than 48
 * hours (`visitors.prune`), then `pruneAnalytics`, then the blocks of the days over since the last pass
 * (`writeDayBlocks`: on a database from before blocks, all of them, oldest first). Salts go first and
 * on their own: while a salt is kept, a day's visitor ids can be recomputed from addresses, so a
 * failing row pruning must not keep them.
 */
export function createAnalyticsHousekeeping(deps: Deps, visitors: VisitorIds) {
  /** The cutoff of the last pass that finished: everything older is gone. */
  let prunedBefore = 0;
  const job = housekeeping(deps, 'analytics', ({ now, stopped }) => [
    { failed: 'analytics salts not pruned', run: () => visitors.prune(now) },
    {
      failed: 'analytics data not pruned',
      run: async () => {
        const done = await pruneAnalytics(deps, { now, pagesFrom: prunedBefore });
        prunedBefore = now - RAW_RETENTION_MS;
        return done;
      },
    },
    {
      failed: 'analytics blocks of days not written',
      run: () => writeDayBlocks(deps.store.writer, { now, stopped }),
    },
  ]);
  return { start: job.start, stop: job.stop, idle: job.idle };
}
