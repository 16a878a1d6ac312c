import { DAY, HOUR } from '../../protocol/durations.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { graphOf } from '../incidents/graph.ts';
import { windowBoundaries } from './boundaries.ts';
import { keysOf, windowWrites } from './manage.ts';
import { registerWindows } from './routes.ts';
import { pruneWindows } from './store.ts';

/**
 * How long ended windows are kept. A silence only matters while in force (and to the deliveries it
 * muted); a maintenance window's time stays out of the year's uptime, so it is kept past that year.
 */
export const KEEP_ENDED_MS = { silence: 30 * DAY, maintenance: 400 * DAY } as const;

/** Silences and maintenance windows (docs/notifications.md): their routes, screen updates, cleanup. */
export function createWindows(deps: Deps) {
  const boundaries = windowBoundaries({
    clock: deps.clock,
    read: deps.store.read,
    keysOf: (where) => keysOf(where, graphOf(deps.store.read, deps.config.current().services)),
    publish: (keys) => deps.bus.publish(...keys),
  });
  const writes = windowWrites(deps, () => boundaries.replan());
  let cleanup: TimerHandle | null = null;

  const prune = async () => {
    const now = deps.clock.now();
    try {
      await deps.store.writer.run((db) => {
        pruneWindows(db, 'silence', now - KEEP_ENDED_MS.silence);
        pruneWindows(db, 'maintenance', now - KEEP_ENDED_MS.maintenance);
      });
    } catch (error) {
      // The next hour tries again; until then a few old rows stay.
      deps.log.warn('pruning ended windows failed', { error: String(error) });
    }
  };
  const hourly = () => {
    cleanup = deps.clock.setTimeout(() => void prune().finally(() => cleanup && hourly()), HOUR);
  };

  const feature: Feature = {
    name: 'windows',
    routes: (app) => registerWindows(app, writes),
    start() {
      boundaries.replan();
      hourly();
    },
    stop() {
      boundaries.stop();
      if (cleanup) deps.clock.clearTimeout(cleanup);
      cleanup = null;
    },
  };
  return { feature };
}
