import type { DatabaseSync } from 'node:sqlite';
import { all, mapper, text } from './rows.ts';

const planRow = mapper({ detail: text });

/**
 * SQLite's plan for `sql`, a line per step (`SEARCH t USING PRIMARY KEY (a=? AND b>?)`, `SCAN t`).
 * A test asserts the plan of a read that must stay bounded by its key (DESIGN rule 4), so that a
 * change of the query or the indexes that makes it scan more fails the test rather than a large site.
 */
export function queryPlan(db: DatabaseSync, sql: string): string[] {
  return all(db, `EXPLAIN QUERY PLAN ${sql}`, planRow).map((r) => r.detail);
}
