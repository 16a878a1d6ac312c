import type { DatabaseSync } from 'node:sqlite';
import { all, int, mapper, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

const siteRow = mapper({ site: text });

/** The analytics tables whose primary key or an index starts with the site. */
export type SiteTable = 'analytics_totals' | 'analytics_dims' | 'analytics_vitals' | 'js_error_groups';

/** The sites a table has rows of: one seek per site along an index that starts with the site. */
export function sitesIn(db: DatabaseSync, table: SiteTable): string[] {
  const sites: string[] = [];
  const sql = `SELECT site FROM ${table} WHERE site > ? ORDER BY site LIMIT 1`;
  for (let row = one(db, sql, siteRow, ''); row; row = one(db, sql, siteRow, row.site)) sites.push(row.site);
  return sites;
}

const groupRow = mapper({ id: int });

/**
 * Deletes the error groups of `site` last seen before `seenBefore` (all of them by default), with
 * their counts, until about `limit` rows are deleted. Returns the rows deleted.
 */
export function deleteErrorGroups(
  db: DatabaseSync,
  site: string,
  limit: number,
  seenBefore = Number.MAX_SAFE_INTEGER,
): number {
  const groups = all(
    db,
    'SELECT id FROM js_error_groups WHERE site = ? AND last_seen < ? LIMIT ?',
    groupRow,
    site,
    seenBefore,
    limit,
  );
  const counts = statement(db, 'DELETE FROM js_error_counts WHERE group_id = ?');
  const group = statement(db, 'DELETE FROM js_error_groups WHERE id = ?');
  let deleted = 0;
  for (const { id } of groups) {
    deleted += Number(counts.run(id).changes) + Number(group.run(id).changes);
    if (deleted >= limit) break;
  }
  return deleted;
}
