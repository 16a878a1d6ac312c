import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import { dayPieces, type Piece } from './blocks.ts';
import { blocksWritten } from './blocks-written.ts';
import type { ReadSpan } from './ranges.ts';

/**
 * The pieces a read of `span` sums for lists, Web Vitals and error counts: its hours, or its days
 * with blocks where they are written (at most two of each length and two single days, plus the
 * days not over yet).
 */
export function spanPieces(db: DatabaseSync, site: string | null, span: ReadSpan): Piece[] {
  if (span.res === 'h') return span.buckets.map((at) => ({ res: 'h', at }));
  if (span.buckets.length === 0) return [];
  const written = site === null ? null : blocksWritten(db, site);
  return dayPieces(span.buckets[0]!, span.buckets.at(-1)! + DAY, written);
}

/**
 * Pieces as one SQL parameter, `[[res, at], …]`: a query joins them first, `json_each(?) AS p CROSS
 * JOIN <table>` on `res = p.value ->> 0 AND at = p.value ->> 1`, so that each is one primary-key seek.
 */
export const piecesParam = (pieces: readonly Piece[]): string =>
  JSON.stringify(pieces.map((p) => [p.res, p.at]));

/**
 * Pieces as runs of one `res`, `[[res, first at, last at], …]`, for a table keyed by something else
 * first (error counts: by group), where a range of `at` is one seek and a scan of only its rows. The
 * pieces of a read follow each other, so a run holds no other bucket of its `res`.
 */
export function runsParam(pieces: readonly Piece[]): string {
  const runs: [Piece['res'], number, number][] = [];
  for (const { res, at } of pieces) {
    const last = runs.at(-1);
    if (last?.[0] === res) last[2] = at;
    else runs.push([res, at, at]);
  }
  return JSON.stringify(runs);
}
