import type { DatabaseSync } from 'node:sqlite';
import { statement } from './statements.ts';
import type { Writer } from './writer.ts';

/**
 * Pruning in chunks: a pass deletes what a feature keeps beyond its time in writer jobs of at most
 * PRUNE_CHUNK_ROWS rows and about PRUNE_CHUNK_MS each, yielding to the event loop between them, so that
 * it holds the writer (and the event loop) for milliseconds. A row costs more in a big table with many
 * indexes, or on a busy disk: each job's size follows the time the last one took.
 */
export const PRUNE_CHUNK_ROWS = 5_000;
export const PRUNE_CHUNK_MS = 20;
/** The first job's rows, before there is a measure; and the floor, so that a slow pass still ends. */
const FIRST_CHUNK_ROWS = 500;
const LEAST_CHUNK_ROWS = 50;

/** A piece of pruning: deletes at most `limit` rows, returns how many it deleted. */
export type PrunePart = (db: DatabaseSync, limit: number) => number;

/**
 * A part that runs one DELETE whose last parameter is the row limit. A DELETE of one row takes the
 * limit with `AND ? > 0`, which holds for any limit a pass gives.
 */
export const deleting =
  (sql: string, ...params: (string | number)[]): PrunePart =>
  (db, limit) =>
    Number(statement(db, sql).run(...params, limit).changes);

/** Runs each part to its end in the caller's transaction: a limit no table reaches. */
export function pruneNow(db: DatabaseSync, parts: PrunePart[]): number {
  let deleted = 0;
  for (const part of parts) deleted += part(db, Number.MAX_SAFE_INTEGER);
  return deleted;
}

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
  let rows = Math.min(FIRST_CHUNK_ROWS, chunkRows);
  for (;;) {
    let took = 0;
    let done = 0;
    const finished = await writer.run((db) => {
      parts ??= partsOf(db);
      const started = performance.now();
      let left = rows;
      while (next < parts.length && left > 0 && performance.now() - started < PRUNE_CHUNK_MS) {
        const n = parts[next]!(db, left);
        left -= n;
        done += n;
        // A part that deleted fewer rows than it could has nothing left.
        if (left > 0) next++;
      }
      took = performance.now() - started;
      return next >= parts.length;
    });
    deleted += done;
    jobs++;
    if (finished) return { deleted, jobs };
    rows = nextChunkRows(rows, done, took, chunkRows);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * The rows of the next job: as many as fit in PRUNE_CHUNK_MS at the last job's pace, at most twice as
 * many as the last (one quick job on a warm cache says little), between LEAST_CHUNK_ROWS and `most`.
 */
export function nextChunkRows(rows: number, done: number, tookMs: number, most: number): number {
  if (done === 0) return rows;
  const fit = Math.floor((done * PRUNE_CHUNK_MS) / Math.max(tookMs, 0.1));
  return Math.max(Math.min(LEAST_CHUNK_ROWS, most), Math.min(fit, 2 * rows, most));
}
