import type { Deps } from '../deps.ts';
import { pruneInChunks } from '../store/pruning.ts';
import { purgeable, purgeParts } from './removed.ts';
import { rollupParts } from './rollups.ts';
import { runParts } from './runs.ts';

/**
 * Deletes raw runs and rollups past their retention, and file checks removed from mon.toml more than a
 * day ago with their history, in short writer jobs (store/pruning.ts) so that writes keep flowing: with
 * 3,000 checks every 10 s, an hour's pass deletes over a million runs.
 */
export async function pruneResults(
  deps: Deps,
  checkIds: string[],
): Promise<{ deleted: number; jobs: number }> {
  const now = deps.clock.now();
  const keep = deps.config.current().retention.checkResultsMs;
  let purged = 0;
  const done = await pruneInChunks(deps.store.writer, (db) => {
    const removed = purgeable(db, now);
    purged = removed.length;
    return [
      ...checkIds.flatMap((id) => runParts(id, now, keep)),
      ...rollupParts(now),
      ...removed.flatMap(purgeParts),
    ];
  });
  if (purged > 0) deps.log.info('checks removed from mon.toml a day ago purged', { count: purged });
  return done;
}
