import type { DatabaseSync } from 'node:sqlite';
import { statement } from './statements.ts';
import type { Writer } from './writer.ts';

/**
 * Pruning in chunks: a pass deletes what a feature keeps beyond its time in writer jobs of at most
 * PRUNE_CHUNK_ROWS rows and PRUNE_CHUNK_MS each, yielding to the event loop between them, so that it
 * holds the writer (and the event loop) for milliseconds.
 */
export const PRUNE_CHUNK_ROWS = 5_000;
const PRUNE_CHUNK_MS = 20;

/** A piece of pruning: deletes at most `limit` rows, returns how many it deleted. */
export type PrunePart = (db: DatabaseSync, limit: number) => number;

/** A part that runs one DELETE whose last parameter is the row limit. */
export const deleting =
  (sql: string, ...params: (string | number)[]): PrunePart =>
  (db, limit) =>
    Number(statement(db, sql).run(...params, limit).changes);

/**
 * Runs the parts `partsOf` lists (built in the first job) until each has nothing left. Resolves with
 * the rows deleted and the jobs it took.
 */
export async function pruneInChunks(
  writer: Writer,
  partsOf: (db: DatabaseSync) => PrunePart[],
  chunkRows = PRUNE_CHUNK_ROWS,
): Promise<{ deleted: number; jobs: number }> {
  let parts: PrunePart[] | null = null;
  let next = 0;
  let deleted = 0;
  let jobs = 0;
  for (;;) {
    const done = await writer.run((db) => {
      parts ??= partsOf(db);
      const started = performance.now();
      let left = chunkRows;
      while (next < parts.length && left > 0 && performance.now() - started < PRUNE_CHUNK_MS) {
        const n = parts[next]!(db, left);
        left -= n;
        deleted += n;
        // A part that deleted fewer rows than it could has nothing left.
        if (left > 0) next++;
      }
      return next >= parts.length;
    });
    jobs++;
    if (done) return { deleted, jobs };
    await new Promise((resolve) => setImmediate(resolve));
  }
}
