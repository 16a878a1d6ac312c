import type { DatabaseSync } from 'node:sqlite';
import {
  type AnalyticsList,
  type AnalyticsRows,
  analyticsLists,
  OTHER_VALUE,
} from '../../protocol/analytics.ts';
import { all, bool, int, mapper, scalar, text } from '../store/rows.ts';
import { daysOf, isBlock, type Piece } from './blocks.ts';
import { piecesParam } from './pieces.ts';

/** Rows of each list in the overview; `GET /analytics/{list}` takes `limit` 1 to 1000 (default 100). */
export const OVERVIEW_ROWS = 10;
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

/**
 * Day rows a read takes at most, over all its lists, in place of the blocks that left values out
 * (block-writes.ts), so that its lists stay exact. Summing them costs about a third of a µs a row on
 * the event loop (the sort of GROUP BY): these keep a read near 50 ms, half its 100 ms goal, on a
 * machine shared with other work. Beyond, a list reads the blocks and says it is not exact.
 */
export const EXACT_DAY_ROWS = 100_000;

const partialRow = mapper({ res: text, at: int, dayRows: int });

/** The blocks among `pieces` whose rows of `list` leave values out, and their day rows. */
const partialSql = `
SELECT b.res, b.at, b.day_rows FROM json_each(?) AS p CROSS JOIN analytics_dim_blocks AS b
  ON b.site = ? AND b.res = p.value ->> 0 AND b.at = p.value ->> 1 AND b.list = ?
WHERE NOT b.complete`;

/**
 * The pieces to read `list` from, whether they make it exact, and the day rows they take of `budget`:
 * blocks that left values out are read as their days while those take at most `budget` rows in all
 * (their count is known, `day_rows`); otherwise they are read as they are, and the list is not exact.
 */
function listPieces(
  db: DatabaseSync,
  site: string,
  pieces: Piece[],
  list: AnalyticsList,
  budget: number,
): { pieces: Piece[]; exact: boolean; dayRows: number } {
  const whole = { pieces, exact: true, dayRows: 0 };
  if (!pieces.some(isBlock)) return whole;
  const partial = all(db, partialSql, partialRow, piecesParam(pieces), site, list);
  if (partial.length === 0) return whole;
  const dayRows = partial.reduce((rows, block) => rows + block.dayRows, 0);
  if (dayRows > budget) return { pieces, exact: false, dayRows: 0 };
  const expanded = new Set(partial.map((block) => `${block.res}\0${block.at}`));
  return {
    pieces: pieces.flatMap((piece) => (expanded.has(`${piece.res}\0${piece.at}`) ? daysOf(piece) : [piece])),
    exact: true,
    dayRows,
  };
}

/**
 * Whether any of the pieces counts values of `list` beyond those it kept (value-caps.ts): one
 * primary-key lookup a piece.
 */
const otherSql = `
SELECT EXISTS (SELECT 1 FROM json_each(?) AS p CROSS JOIN analytics_dims AS d
  ON d.site = ? AND d.res = p.value ->> 0 AND d.at = p.value ->> 1 AND d.list = ? AND d.value = ?)`;

const listRow = mapper({ value: text, visitors: int, views: int, total: int });

/**
 * The values of one list summed over the pieces, with how many match in all. Each piece is looked up
 * by the primary key, so only this list's rows of those pieces are read; campaign lists have rows
 * only for visits that carried the parameter, so their views are those visits' views. Pages rank by
 * views, the other lists by visitors; ties by value (as blocks keep their first values). A search
 * keeps the values containing it in any case, in every script (`unicode_lower`, registered on the
 * read connection, store/db.ts), over the same rows.
 */
const listSql = (rankBy: 'views' | 'visitors', searched: boolean) => `
SELECT value, visitors, views, count(*) OVER () AS total FROM (
  SELECT d.value, sum(d.visitors) AS visitors, sum(d.views) AS views
  FROM json_each(?) AS p CROSS JOIN analytics_dims AS d
    ON d.site = ? AND d.res = p.value ->> 0 AND d.at = p.value ->> 1 AND d.list = ?
  ${searched ? 'WHERE instr(unicode_lower(d.value), ?) > 0' : ''}
  GROUP BY d.value)
ORDER BY ${rankBy} DESC, value LIMIT ?`;
const listSqls = {
  views: { all: listSql('views', false), searched: listSql('views', true) },
  visitors: { all: listSql('visitors', false), searched: listSql('visitors', true) },
};

/**
 * The first `limit` values of `list` whose value contains `search`, and how many match, over the
 * pieces of a read (pieces.ts). Not exact when blocks that left values out had to be read (their days
 * more than EXACT_DAY_ROWS rows): the counts of the rows may then be short, and `total` counts the
 * values read; nor when a piece counts values beyond those its hour or day kept in an OTHER_VALUE row
 * (value-caps.ts), which ranks like any value.
 */
export function readList(
  db: DatabaseSync,
  site: string | null,
  pieces: Piece[],
  list: AnalyticsList,
  options: { search?: string; limit: number },
): AnalyticsRows {
  return readListSpending(db, site, pieces, list, options, EXACT_DAY_ROWS).rows;
}

function readListSpending(
  db: DatabaseSync,
  site: string | null,
  pieces: Piece[],
  list: AnalyticsList,
  options: { search?: string; limit: number },
  budget: number,
): { rows: AnalyticsRows; dayRows: number } {
  if (site === null || pieces.length === 0) return { rows: { rows: [], total: 0, exact: true }, dayRows: 0 };
  const read = listPieces(db, site, pieces, list, budget);
  const sqls = listSqls[list === 'pages' ? 'views' : 'visitors'];
  const search = options.search ?? '';
  const where = [piecesParam(read.pieces), site, list] as const;
  const overflowed = scalar(db, otherSql, bool, ...where, OTHER_VALUE);
  const rows =
    search === ''
      ? all(db, sqls.all, listRow, ...where, options.limit)
      : all(db, sqls.searched, listRow, ...where, search.toLowerCase(), options.limit);
  return {
    rows: {
      rows: rows.map(({ value, visitors, views }) => ({ value, visitors, views })),
      total: rows[0]?.total ?? 0,
      exact: read.exact && !overflowed,
    },
    dayRows: read.dayRows,
  };
}

/**
 * Ten rows of every list and their totals, for the overview read. The lists share one budget of day
 * rows, in their order (pages first): the read as a whole stays within its goal.
 */
export function readDimensions(
  db: DatabaseSync,
  site: string | null,
  pieces: Piece[],
): Record<AnalyticsList, AnalyticsRows> {
  let budget = EXACT_DAY_ROWS;
  const lists = analyticsLists.map((list) => {
    const read = readListSpending(db, site, pieces, list, { limit: OVERVIEW_ROWS }, budget);
    budget -= read.dayRows;
    return [list, read.rows] as const;
  });
  return Object.fromEntries(lists) as Record<AnalyticsList, AnalyticsRows>;
}
