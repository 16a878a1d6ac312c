import { DAY } from '../../protocol/durations.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { housekeeping } from '../housekeeping.ts';
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
  // A minute after start, then every hour; a failed pass leaves a few old rows to the next.
  const cleanup = housekeeping(deps, 'windows', ({ now }) => [
    {
      failed: 'pruning ended windows failed',
      run: () =>
        deps.store.writer.run((db) => ({
          deleted:
            pruneWindows(db, 'silence', now - KEEP_ENDED_MS.silence) +
            pruneWindows(db, 'maintenance', now - KEEP_ENDED_MS.maintenance),
        })),
    },
  ]);

  const feature: Feature = {
    name: 'windows',
    routes: (app) => registerWindows(app, writes),
    start() {
      boundaries.replan();
      cleanup.start();
    },
    stop() {
      boundaries.stop();
      cleanup.stop();
    },
  };
  return { feature };
}
