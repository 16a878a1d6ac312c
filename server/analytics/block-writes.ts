import type { DatabaseSync } from 'node:sqlite';
import { analyticsLists } from '../../protocol/analytics.ts';
import { DAY, HOUR } from '../../protocol/durations.ts';
import { int, mapper, nullable, one, scalar, text } from '../store/rows.ts';
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
import { blocksWritten } from './blocks-written.ts';
import { MAX_LIST_LIMIT } from './lists.ts';
import { RAW_RETENTION_MS } from './retention.ts';
import { dayOf } from './rollups.ts';
import { sitesIn } from './site-rows.ts';

/**
 * Housekeeping writes the blocks of days (blocks.ts, migration 020) once their days are over, never
 * the ingest of tracker events: each block from its two halves, so that a longer block costs the rows
 * of two halves whatever its length. A block of two days reads every row of its days, as many as a
 * site has values: it is written in steps of at most STEP_ROWS day rows, over as many writer jobs as
 * it takes.
 */

/** Values of each list a block keeps: as many as a list read answers at most. */
export const BLOCK_VALUES = MAX_LIST_LIMIT;

/**
 * A UTC day's rollups are final this long after it ends: the events of a batch that straddles
 * midnight are written a moment after it.
 */
const DAY_OVER_AFTER_MS = HOUR;

/** A writer job of the block pass writes blocks for about this long at most: one block or step at least. */
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
 * Day rows a step of a block of two days reads at most, of one list: about 10 ms of the writer (two
 * days of 50,000 pages each took 250 ms in one statement).
 */
export const STEP_ROWS = 4_000;

/** What list `?N` ranks a row by (lists.ts): pages by views, the others by visitors. */
const countOf = (list: string) => `CASE ${list} WHEN 'pages' THEN views ELSE visitors END`;

/** A row's rank in its list `?N`: by its count, ties by value. */
const rankOf = (list: string) => `row_number() OVER (ORDER BY ${countOf(list)} DESC, value)`;

/**
 * A longer block's list rows: the values of its halves summed, the first BLOCK_VALUES of each list as
 * the list ranks them (lists.ts). Parameters: site, res, at, then the halves' res and starts.
 */
const valuesSql = `
INSERT INTO analytics_dims (site, res, at, list, value, visitors, views)
SELECT ?1, ?2, ?3, list, value, visitors, views FROM (
  SELECT list, value, visitors, views, row_number() OVER (
    PARTITION BY list ORDER BY CASE list WHEN 'pages' THEN views ELSE visitors END DESC, value) AS rank
  FROM (SELECT list, value, sum(visitors) AS visitors, sum(views) AS views FROM analytics_dims
        WHERE site = ?1 AND res = ?4 AND at IN (?5, ?6) GROUP BY list, value))
WHERE rank <= ${BLOCK_VALUES}`;

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

/** A longer block, from its halves: their list rows are BLOCK_VALUES a list at most. */
function writeBlock(db: DatabaseSync, site: string, block: Block): void {
  const [first, second] = halvesOf(block);
  const params = [site, block.res, block.at, first.res, first.at, second.at] as const;
  statement(db, valuesSql).run(...params);
  statement(db, longerSql).run(...params);
  statement(db, vitalsSql).run(...params);
  // Errors are read over spans within their retention only (read.ts): a longer block is never read.
  if (daysIn(block) * DAY <= RAW_RETENTION_MS) statement(db, errorsSql).run(...params);
}

/**
 * A block of two days being written, between writer jobs: its lists are written one after the other
 * (in the order of analyticsLists), each in runs of values in the order of the primary key. A value's
 * rows of both days are in the same run, so each run's first BLOCK_VALUES hold the list's first
 * BLOCK_VALUES: each is added to the block's rows, which are then cut back to the first BLOCK_VALUES.
 */
export type TwoDaysUnderWay = {
  block: Block;
  /** The list being written, as an index of analyticsLists. */
  list: number;
  /** The first value of the list not written yet: '' at its start (every text is at least ''). */
  from: string;
  /** The list's day rows and values read so far. */
  dayRows: number;
  values: number;
};

/** The rows of the run: list `?6` on the block's days `?4` and `?5`, values from `?7` (up to `?8`). */
const runOf = (last: boolean) =>
  `analytics_dims WHERE site = ?1 AND res = 'd' AND at IN (?4, ?5) AND list = ?6 AND value >= ?7${last ? '' : ' AND value < ?8'}`;

/**
 * The run's first BLOCK_VALUES values, summed, that rank before the block's last kept value when it
 * has BLOCK_VALUES already (only those can stay; `kept` is MATERIALIZED so that it is found once, not
 * for every row). Parameters: site, res, at, the days, list, from, to.
 */
const runSqls = (last: boolean) => ({
  values: `
INSERT INTO analytics_dims (site, res, at, list, value, visitors, views)
WITH kept AS MATERIALIZED (
  SELECT ${countOf('?6')} AS n, value FROM analytics_dims WHERE site = ?1 AND res = ?2 AND at = ?3 AND list = ?6
  ORDER BY n DESC, value LIMIT 1 OFFSET ${BLOCK_VALUES - 1})
SELECT ?1, ?2, ?3, ?6, value, visitors, views FROM (
  SELECT value, visitors, views, ${countOf('?6')} AS n, ${rankOf('?6')} AS rank
  FROM (SELECT value, sum(visitors) AS visitors, sum(views) AS views FROM ${runOf(last)} GROUP BY value)) AS r
WHERE rank <= ${BLOCK_VALUES} AND NOT EXISTS (
  SELECT 1 FROM kept WHERE kept.n > r.n OR (kept.n = r.n AND kept.value < r.value))`,
  counts: `SELECT count(*) AS day_rows, count(DISTINCT value) AS "values" FROM ${runOf(last)}`,
});
const runs = { to: runSqls(false), last: runSqls(true) };
const countsRow = mapper({ dayRows: int, values: int });

/**
 * Where a run of list `?4` from `?5` stops: the first value `?6` rows on in either day `?2` or `?3`
 * (SQLite's order of text, not JavaScript's); null when both have fewer.
 */
const runEndSql = `
SELECT min(value) FROM (
  SELECT * FROM (SELECT value FROM analytics_dims WHERE site = ?1 AND res = 'd' AND at = ?2 AND list = ?4
                 AND value >= ?5 ORDER BY value LIMIT 1 OFFSET ?6)
  UNION ALL
  SELECT * FROM (SELECT value FROM analytics_dims WHERE site = ?1 AND res = 'd' AND at = ?3 AND list = ?4
                 AND value >= ?5 ORDER BY value LIMIT 1 OFFSET ?6))`;

/** Cuts a block's rows of list `?4` back to its first BLOCK_VALUES. */
const cutSql = `
DELETE FROM analytics_dims WHERE site = ?1 AND res = ?2 AND at = ?3 AND list = ?4 AND value IN (
  SELECT value FROM (SELECT value, ${rankOf('?4')} AS rank FROM analytics_dims
                     WHERE site = ?1 AND res = ?2 AND at = ?3 AND list = ?4)
  WHERE rank > ${BLOCK_VALUES})`;

/**
 * Starts a block of two days: rows of it left by a pass that stopped part way (a server stopped, a
 * job that failed) are deleted first, as nothing reads a block before it is written.
 */
function startTwoDays(db: DatabaseSync, site: string, block: Block): TwoDaysUnderWay {
  for (const table of ['analytics_dims', 'analytics_dim_blocks'] as const)
    statement(db, `DELETE FROM ${table} WHERE site = ? AND res = ? AND at = ?`).run(
      site,
      block.res,
      block.at,
    );
  return { block, list: 0, from: '', dayRows: 0, values: 0 };
}

/**
 * Writes the next run of values of a block of two days, at most STEP_ROWS day rows; once its lists
 * are written, its Web Vitals and error counts. Returns what is left under way, null when the block is
 * written.
 */
function stepTwoDays(db: DatabaseSync, site: string, underWay: TwoDaysUnderWay): TwoDaysUnderWay | null {
  const { block } = underWay;
  const [first, second] = halvesOf(block);
  const list = analyticsLists[underWay.list];
  if (list === undefined) {
    const params = [site, block.res, block.at, first.res, first.at, second.at] as const;
    statement(db, vitalsSql).run(...params);
    statement(db, errorsSql).run(...params);
    return null;
  }
  // Each day has at most STEP_ROWS / 2 rows in the run.
  const days = [first.at, second.at] as const;
  const to = scalar(db, runEndSql, nullable(text), site, ...days, list, underWay.from, STEP_ROWS / 2);
  const params = [site, block.res, block.at, first.at, second.at, list, underWay.from] as const;
  const sqls = to === null ? runs.last : runs.to;
  const tail = to === null ? [] : [to];
  const added = statement(db, sqls.values).run(...params, ...tail).changes;
  const run = one(db, sqls.counts, countsRow, ...params, ...tail)!;
  const dayRows = underWay.dayRows + run.dayRows;
  const values = underWay.values + run.values;
  if (values > BLOCK_VALUES && Number(added) > 0) statement(db, cutSql).run(site, block.res, block.at, list);
  if (to !== null) return { ...underWay, from: to, dayRows, values };
  if (dayRows > 0) {
    statement(
      db,
      'INSERT INTO analytics_dim_blocks (site, res, at, list, day_rows, complete) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(site, block.res, block.at, list, dayRows, values <= BLOCK_VALUES ? 1 : 0);
  }
  return { block, list: underWay.list + 1, from: '', dayRows: 0, values: 0 };
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
 * passes: a longer block at once, a block of two days in steps, starting from `underWay`, the block
 * of two days the last call left under way. Returns whether none is left, and what is under way. The
 * first pass over a site (a new site, or data from before migration 020) starts at its first day.
 */
export function writeSiteBlocks(
  db: DatabaseSync,
  site: string,
  daysOver: number,
  deadline: number,
  underWay: TwoDaysUnderWay | null = null,
): { done: boolean; underWay: TwoDaysUnderWay | null } {
  const written = blocksWritten(db, site) ?? startBlocks(db, site);
  if (!written) return { done: true, underWay: null };
  const until = new Map(written.until);
  const advance = statement(db, 'UPDATE analytics_blocks_written SET until = ? WHERE site = ? AND res = ?');
  let step = underWay;
  for (;;) {
    const block = step?.block ?? nextBlock({ since: written.since, until }, daysOver);
    if (!block) return { done: true, underWay: null };
    if (block.res === blockRes(2)) step = stepTwoDays(db, site, step ?? startTwoDays(db, site, block));
    else writeBlock(db, site, block);
    if (step === null) {
      const end = block.at + daysIn(block) * DAY;
      until.set(block.res, end);
      advance.run(end, site, block.res);
    }
    if (performance.now() >= deadline) return { done: false, underWay: step };
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
    // Kept once its job commits: a job rolled back ends the pass.
    let underWay: TwoDaysUnderWay | null = null;
    for (;;) {
      if (options.stopped?.()) return { jobs };
      const from: TwoDaysUnderWay | null = underWay;
      const pass: ReturnType<typeof writeSiteBlocks> = await writer.run((db) =>
        writeSiteBlocks(db, site, daysOver, performance.now() + BLOCK_JOB_MS, from),
      );
      jobs++;
      if (pass.done) break;
      underWay = pass.underWay;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return { jobs };
}
