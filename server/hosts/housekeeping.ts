import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { statement } from '../store/statements.ts';
import { pruneAgentLogs } from './logs.ts';
import { pruneHostRollups } from './rollups.ts';

const HOUR_MS = 3_600_000;
/** Host events are likely-cause evidence for incidents, which reads reach back 400 days. */
export const HOST_EVENT_KEEP_MS = 400 * 86_400_000;
/** A container or unit gone this long is forgotten (its rollups age out with their resolution). */
export const GONE_ITEM_KEEP_MS = 86_400_000;

/** Deletes what hosts keep beyond its time: rollups, agent logs, host events, items long gone. */
export function pruneHosts(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  return deps.store.writer.run((db) => {
    pruneHostRollups(db, now);
    pruneAgentLogs(db, now);
    statement(db, 'DELETE FROM host_events WHERE ts < ?').run(now - HOST_EVENT_KEEP_MS);
    statement(db, 'DELETE FROM host_items WHERE gone_at IS NOT NULL AND gone_at < ?').run(
      now - GONE_ITEM_KEEP_MS,
    );
  });
}

/** Runs `pruneHosts` every hour on one clock timer. */
export function createHousekeeping(deps: Deps) {
  let timer: TimerHandle | null = null;
  const plan = () => {
    timer = deps.clock.setTimeout(() => {
      void pruneHosts(deps)
        .catch((error: unknown) => deps.log.warn('host data not pruned', { error: String(error) }))
        .finally(() => {
          if (timer !== null) plan();
        });
    }, HOUR_MS);
  };
  return {
    start: plan,
    stop() {
      if (timer) deps.clock.clearTimeout(timer);
      timer = null;
    },
  };
}
