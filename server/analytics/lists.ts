import type { DatabaseSync } from 'node:sqlite';
import { type AnalyticsList, type AnalyticsRows, analyticsLists } from '../../protocol/analytics.ts';
import { all, int, mapper, text } from '../store/rows.ts';
import type { ReadSpan } from './ranges.ts';

/** Rows of each list in the overview; `GET /analytics/{list}` takes `limit` 1 to 1000 (default 100). */
export const OVERVIEW_ROWS = 10;
export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

const listRow = mapper({ value: text, visitors: int, views: int, total: int });

/**
 * The values of one list summed over the span's buckets, with how many match in all. The buckets are
 * looked up one by one (`at IN …`), so the primary key reads only this list's rows of those buckets;
 * campaign lists have rows only for visits that carried the parameter, so their views are those
 * visits' views. Pages rank by views, the other lists by visitors; ties by value. A search keeps the
 * values containing it in any case, in every script (`unicode_lower`, registered on the read
 * connection, store/db.ts), over the same rows.
 */
const listSql = (rankBy: 'views' | 'visitors', searched: boolean) => `
SELECT value, visitors, views, count(*) OVER () AS total FROM (
  SELECT value, sum(visitors) AS visitors, sum(views) AS views FROM analytics_dims
  WHERE site = ? AND res = ? AND at IN (SELECT value FROM json_each(?)) AND list = ?
    ${searched ? 'AND instr(unicode_lower(value), ?) > 0' : ''}
  GROUP BY value)
ORDER BY ${rankBy} DESC, value LIMIT ?`;
const listSqls = {
  views: { all: listSql('views', false), searched: listSql('views', true) },
  visitors: { all: listSql('visitors', false), searched: listSql('visitors', true) },
};

/** The first `limit` values of `list` whose value contains `search`, and how many match. */
export function readList(
  db: DatabaseSync,
  site: string | null,
  span: ReadSpan,
  list: AnalyticsList,
  options: { search?: string; limit: number },
): AnalyticsRows {
  if (site === null || span.buckets.length === 0) return { rows: [], total: 0 };
  const sqls = listSqls[list === 'pages' ? 'views' : 'visitors'];
  const search = options.search ?? '';
  const where = [site, span.res, JSON.stringify(span.buckets), list] as const;
  const rows =
    search === ''
      ? all(db, sqls.all, listRow, ...where, options.limit)
      : all(db, sqls.searched, listRow, ...where, search.toLowerCase(), options.limit);
  return {
    rows: rows.map(({ value, visitors, views }) => ({ value, visitors, views })),
    total: rows[0]?.total ?? 0,
  };
}

/** Ten rows of every list and their totals, for the overview read. */
export function readDimensions(
  db: DatabaseSync,
  site: string | null,
  span: ReadSpan,
): Record<AnalyticsList, AnalyticsRows> {
  return Object.fromEntries(
    analyticsLists.map((list) => [list, readList(db, site, span, list, { limit: OVERVIEW_ROWS })]),
  ) as Record<AnalyticsList, AnalyticsRows>;
}
