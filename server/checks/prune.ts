import type { Deps } from '../deps.ts';
import { purgeRemoved } from './removed.ts';
import { pruneRollups } from './rollups.ts';
import { pruneRuns } from './runs.ts';

/**
 * Deletes raw runs and rollups past their retention, in chunks of checks so writes keep flowing, and
 * file checks removed from mon.toml more than a day ago with their history.
 */
export async function pruneResults(deps: Deps, checkIds: string[]): Promise<void> {
  const now = deps.clock.now();
  const keep = deps.config.current().retention.checkResultsMs;
  try {
    for (let i = 0; i < checkIds.length; i += 500) {
      const chunk = checkIds.slice(i, i + 500);
      await deps.store.writer.run((db) => pruneRuns(db, chunk, now, keep));
    }
    await deps.store.writer.run((db) => pruneRollups(db, now));
    const purged = await deps.store.writer.run((db) => purgeRemoved(db, now));
    if (purged > 0) deps.log.info('checks removed from mon.toml a day ago purged', { count: purged });
  } catch (error) {
    deps.log.warn('pruning check runs failed', { error: String(error) });
  }
}
