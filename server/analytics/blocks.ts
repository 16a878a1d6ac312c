import { DAY } from '../../protocol/durations.ts';

/**
 * Blocks of days (migration 020): the rollups of 2, 4, … 256 UTC days, so that a read of a long range
 * sums a few blocks rather than every day. A block of n days starts on a day whose number since
 * 1970-01-01 is a multiple of n: the two halves of a block are blocks (or, for two days, days), and a
 * run of whole days is at most two blocks of each length and two single days.
 */

/** Block lengths in days, shortest first. */
export const BLOCK_DAYS = [2, 4, 8, 16, 32, 64, 128, 256] as const;

/** A block's `res` in the rollup tables: its length in days, `'2d'` to `'256d'`. */
export type BlockRes = `${number}d`;

/** A bucket a read sums: an hour, a UTC day or a block of days, by its first ms. */
export type Piece = { res: 'h' | 'd' | BlockRes; at: number };
export type Block = { res: BlockRes; at: number };

/**
 * The blocks of a site written: those of each length within [since, `until` of the length). `since`
 * is the site's first day with data when its blocks were first written.
 */
export type BlocksWritten = { since: number; until: ReadonlyMap<BlockRes, number> };

export const blockRes = (days: number): BlockRes => `${days}d`;

export const isBlock = (piece: Piece): boolean => piece.res !== 'h' && piece.res !== 'd';

/** The length of a day or block piece, in days. */
export const daysIn = (piece: Piece): number => (piece.res === 'd' ? 1 : Number.parseInt(piece.res, 10));

/** The days of a day or block piece. */
export function daysOf(piece: Piece): Piece[] {
  return Array.from({ length: daysIn(piece) }, (_, i) => ({ res: 'd', at: piece.at + i * DAY }));
}

/** A block's two halves: blocks half as long, or two days. */
export function halvesOf(block: Block): [Piece, Piece] {
  const half = daysIn(block) / 2;
  const res = half === 1 ? 'd' : blockRes(half);
  return [
    { res, at: block.at },
    { res, at: block.at + half * DAY },
  ];
}

/**
 * The next block to write: of the shortest length whose next block (the first after those written)
 * has its halves, days before `daysOver` or blocks written. Null when none has.
 */
export function nextBlock(written: BlocksWritten, daysOver: number): Block | null {
  for (const days of BLOCK_DAYS) {
    const length = days * DAY;
    const from = Math.max(written.since, written.until.get(blockRes(days)) ?? written.since);
    const at = Math.ceil(from / length) * length;
    const halvesUntil = days === 2 ? daysOver : (written.until.get(blockRes(days / 2)) ?? written.since);
    if (at + length <= halvesUntil) return { res: blockRes(days), at };
  }
  return null;
}

/**
 * The days [from, to) (UTC day starts) as few pieces as the blocks written allow: from each day on,
 * the longest block written that starts there and ends by `to`; a day where there is none.
 */
export function dayPieces(from: number, to: number, written: BlocksWritten | null): Piece[] {
  const pieces: Piece[] = [];
  let at = from;
  while (at < to) {
    const fits = BLOCK_DAYS.findLast(
      (n) =>
        written !== null &&
        at >= written.since &&
        (at / DAY) % n === 0 &&
        at + n * DAY <= Math.min(to, written.until.get(blockRes(n)) ?? 0),
    );
    const days = fits ?? 1;
    pieces.push({ res: fits ? blockRes(days) : 'd', at });
    at += days * DAY;
  }
  return pieces;
}
