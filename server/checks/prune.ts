import type { Deps } from '../deps.ts';
import { pruneRollups } from './rollups.ts';
import { pruneRuns } from './runs.ts';

/** Deletes raw runs and rollups past their retention, in chunks of checks so writes keep flowing. */
export async function pruneResults(deps: Deps, checkIds: string[]): Promise<void> {
  const now = deps.clock.now();
  const keep = deps.config.current().retention.checkResultsMs;
  try {
    for (let i = 0; i < checkIds.length; i += 500) {
      const chunk = checkIds.slice(i, i + 500);
      await deps.store.writer.run((db) => pruneRuns(db, chunk, now, keep));
    }
    await deps.store.writer.run((db) => pruneRollups(db, now));
  } catch (error) {
    deps.log.warn('pruning check runs failed', { error: String(error) });
  }
}
