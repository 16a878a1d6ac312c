import type { DatabaseSync } from 'node:sqlite';
import { DAY, HOUR } from '../checks/rollups.ts';
import { int, nullable, scalar } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Writer } from '../store/writer.ts';
import {
  BLOCK_DAYS,
  type Block,
  type BlocksWritten,
  blockRes,
  daysIn,
  halvesOf,
  nextBlock,
} from './blocks.ts';
import { MAX_LIST_LIMIT } from './lists.ts';
import { blocksWritten } from './pieces.ts';
import { dayOf } from './rollups.ts';
import { sitesIn } from './site-rows.ts';

/**
 * Housekeeping writes the blocks of days (blocks.ts, migration 020) once their days are over, never
 * the ingest of tracker events: each block from its two halves, so that a block costs the rows of
 * two halves whatever its length.
 */

/** Values of each list a block keeps: as many as a list read answers at most. */
export const BLOCK_VALUES = MAX_LIST_LIMIT;

/**
 * A UTC day's rollups are final this long after it ends: the events of a batch that straddles
 * midnight are written a moment after it.
 */
const DAY_OVER_AFTER_MS = HOUR;

/** A writer job of the block pass writes blocks for about this long at most: one block at least. */
const BLOCK_JOB_MS = 10;

/** The days before this one are over at `now`: their blocks can be written. */
export const daysOverAt = (now: number): number => dayOf(now - DAY_OVER_AFTER_MS);

/** The site's first day with rollups (totals, lists, Web Vitals or error counts), or null. */
const firstDaySql = `
SELECT min(at) FROM (
  SELECT min(at) AS at FROM analytics_totals WHERE site = ?1 AND res = 'd'
  UNION ALL SELECT min(at) FROM analytics_dims WHERE site = ?1 AND res = 'd'
  UNION ALL SELECT min(at) FROM analytics_vitals WHERE site = ?1 AND res = 'd'
  UNION ALL SELECT min(c.at) FROM js_error_groups g JOIN js_error_counts c ON c.group_id = g.id AND c.res = 'd'
    WHERE g.site = ?1)`;

/**
 * A block's list rows: the values of its halves summed, the first BLOCK_VALUES of each list as the
 * list ranks them (lists.ts). Parameters: site, res, at, then the halves' res and starts.
 */
const valuesSql = `
INSERT INTO analytics_dims (site, res, at, list, value, visitors, views)
SELECT ?1, ?2, ?3, list, value, visitors, views FROM (
  SELECT list, value, visitors, views, row_number() OVER (
    PARTITION BY list ORDER BY CASE list WHEN 'pages' THEN views ELSE visitors END DESC, value) AS rank
  FROM (SELECT list, value, sum(visitors) AS visitors, sum(views) AS views FROM analytics_dims
        WHERE site = ?1 AND res = ?4 AND at IN (?5, ?6) GROUP BY list, value))
WHERE rank <= ${BLOCK_VALUES}`;

/** What a block of two days leaves out of each list. */
const twoDaysSql = `
INSERT INTO analytics_dim_blocks (site, res, at, list, day_rows, complete)
SELECT ?1, ?2, ?3, list, count(*), count(DISTINCT value) <= ${BLOCK_VALUES} FROM analytics_dims
WHERE site = ?1 AND res = ?4 AND at IN (?5, ?6) GROUP BY list`;

/** What a longer block leaves out: what its halves left out, and the values beyond BLOCK_VALUES. */
const longerSql = `
INSERT INTO analytics_dim_blocks (site, res, at, list, day_rows, complete)
SELECT ?1, ?2, ?3, h.list, sum(h.day_rows), min(h.complete) AND (
    SELECT count(DISTINCT d.value) FROM analytics_dims d
    WHERE d.site = ?1 AND d.res = ?4 AND d.at IN (?5, ?6) AND d.list = h.list) <= ${BLOCK_VALUES}
FROM analytics_dim_blocks h WHERE h.site = ?1 AND h.res = ?4 AND h.at IN (?5, ?6) GROUP BY h.list`;

/** The Web Vitals histograms over every page, whole. */
const vitalsSql = `
INSERT INTO analytics_vitals (site, res, at, page, metric, bucket, n)
SELECT ?1, ?2, ?3, '', metric, bucket, sum(n) FROM analytics_vitals
WHERE site = ?1 AND res = ?4 AND at IN (?5, ?6) AND page = ''
GROUP BY metric, bucket HAVING sum(n) <> 0`;

/** Each error group's count, whole (index by res and at). */
const errorsSql = `
INSERT INTO js_error_counts (group_id, res, at, n)
SELECT c.group_id, ?2, ?3, sum(c.n) FROM js_error_counts c JOIN js_error_groups g ON g.id = c.group_id
WHERE c.res = ?4 AND c.at IN (?5, ?6) AND g.site = ?1
GROUP BY c.group_id HAVING sum(c.n) <> 0`;

function writeBlock(db: DatabaseSync, site: string, block: Block): void {
  const [first, second] = halvesOf(block);
  const params = [site, block.res, block.at, first.res, first.at, second.at] as const;
  statement(db, valuesSql).run(...params);
  statement(db, first.res === 'd' ? twoDaysSql : longerSql).run(...params);
  statement(db, vitalsSql).run(...params);
  statement(db, errorsSql).run(...params);
}

/** Starts the blocks of `site` at its first day with data; null when it has none. */
function startBlocks(db: DatabaseSync, site: string): BlocksWritten | null {
  const since = scalar(db, firstDaySql, nullable(int), site);
  if (since === null) return null;
  const insert = statement(
    db,
    'INSERT INTO analytics_blocks_written (site, res, since, until) VALUES (?, ?, ?, ?)',
  );
  for (const days of BLOCK_DAYS) insert.run(site, blockRes(days), since, since);
  return { since, until: new Map(BLOCK_DAYS.map((days) => [blockRes(days), since])) };
}

/**
 * Writes the blocks of `site` not written yet whose days are before `daysOver`, one at a time
 * (nextBlock: shortest first, each once its halves are), until `deadline` (`performance.now()`)
 * passes. Returns true when none is left. The first pass over a site (a new site, or data from before
 * migration 020) starts at its first day.
 */
export function writeSiteBlocks(db: DatabaseSync, site: string, daysOver: number, deadline: number): boolean {
  const written = blocksWritten(db, site) ?? startBlocks(db, site);
  if (!written) return true;
  const until = new Map(written.until);
  const advance = statement(db, 'UPDATE analytics_blocks_written SET until = ? WHERE site = ? AND res = ?');
  for (;;) {
    const block = nextBlock({ since: written.since, until }, daysOver);
    if (!block) return true;
    writeBlock(db, site, block);
    const end = block.at + daysIn(block) * DAY;
    until.set(block.res, end);
    advance.run(end, site, block.res);
    if (performance.now() >= deadline) return false;
  }
}

/**
 * Writes the blocks of every site's days over at `now`, in writer jobs of about BLOCK_JOB_MS,
 * yielding to the event loop between them; stops early when `stopped()` says so. Resolves with the
 * jobs it took.
 */
export async function writeDayBlocks(
  writer: Pick<Writer, 'run'>,
  options: { now: number; stopped?: () => boolean },
): Promise<{ jobs: number }> {
  const daysOver = daysOverAt(options.now);
  const sites = await writer.run((db) => {
    const tables = ['analytics_totals', 'analytics_dims', 'analytics_vitals', 'js_error_groups'] as const;
    return [...new Set(tables.flatMap((table) => sitesIn(db, table)))];
  });
  let jobs = 0;
  for (const site of sites) {
    for (;;) {
      if (options.stopped?.()) return { jobs };
      const done = await writer.run((db) =>
        writeSiteBlocks(db, site, daysOver, performance.now() + BLOCK_JOB_MS),
      );
      jobs++;
      if (done) break;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return { jobs };
}
