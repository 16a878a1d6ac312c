import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Statements kept per connection at most; code passes constant SQL, so this is never reached. */
const MAX_STATEMENTS = 500;
const caches = new WeakMap<DatabaseSync, Map<string, StatementSync>>();

/**
 * The connection's prepared statement for `sql`, prepared once. node:sqlite frees a statement's native
 * memory only when its JS object is garbage collected, which the small JS object rarely triggers:
 * preparing on every call grew the process by ~7 KB per call (10,000 check inserts in one job: +69 MB
 * of RSS, kept by the allocator after it was freed). Pass constant SQL and values as parameters.
 */
export function statement(db: DatabaseSync, sql: string): StatementSync {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let stmt = cache.get(sql);
  if (!stmt) {
    if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
    stmt = db.prepare(sql);
    cache.set(sql, stmt);
  }
  return stmt;
}
