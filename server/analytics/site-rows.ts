import type { DatabaseSync } from 'node:sqlite';
import { mapper, one, text } from '../store/rows.ts';

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
