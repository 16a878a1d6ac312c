import type { DatabaseSync } from 'node:sqlite';
import { all, int, mapper, oneOf } from '../store/rows.ts';
import { BLOCK_DAYS, type BlocksWritten, blockRes } from './blocks.ts';

/**
 * How far each site's blocks of days are written (`analytics_blocks_written`): block-writes.ts writes
 * them and goes on from there; a read sums them where they are (pieces.ts).
 */

const writtenRow = mapper({ res: oneOf(BLOCK_DAYS.map(blockRes)), since: int, until: int });

/** The blocks of `site` written, or null before its first block pass. */
export function blocksWritten(db: DatabaseSync, site: string): BlocksWritten | null {
  const rows = all(
    db,
    'SELECT res, since, until FROM analytics_blocks_written WHERE site = ?',
    writtenRow,
    site,
  );
  if (rows.length === 0) return null;
  return {
    since: rows[0]!.since,
    until: new Map(rows.map((row) => [row.res, row.until])),
  };
}
