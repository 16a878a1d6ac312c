import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import type { Tx } from '../store/writer.ts';
import { applyTrackerItems } from './apply.ts';
import { createAnalyticsHousekeeping } from './housekeeping.ts';
import { registerIngest } from './ingest.ts';
import { registerAnalyticsReads } from './routes.ts';
import { SharedAddressWatch } from './shared-address.ts';
import { createSites } from './sites.ts';
import { registerSites } from './sites-routes.ts';
import { registerTrackerScript } from './tracker.ts';
import type { TrackerItem } from './types.ts';
import { createVisitorIds } from './visitors.ts';

/** Tracker events waiting for storage at most; beyond, 503. */
const MAX_WAITING_EVENTS = 20_000;
/** Events written in one writer job at most. */
const EVENTS_PER_JOB = 2_000;

export type AnalyticsOptions = {
  /** Tracker events waiting for storage at most (default 20,000). */
  maxWaitingEvents?: number;
  /** Replaces how tracker events are stored (tests of the request side record what arrives). */
  applyItems?: (tx: Tx, items: TrackerItem[]) => void;
};

/**
 * Web analytics and JavaScript errors (docs/analytics.md): the tracking script, `POST /e`, the
 * analytics reads, `POST /api/v1/sites`, and the pruning of salts and raw data (a minute after start,
 * then hourly).
 */
export function createAnalytics(deps: Deps, engine: CheckEngine, options: AnalyticsOptions = {}) {
  const sites = createSites(deps);
  const visitors = createVisitorIds(deps);
  const shared = new SharedAddressWatch();
  const housekeeping = createAnalyticsHousekeeping(deps, visitors);
  const queue = deps.store.ingestQueue<TrackerItem>({
    maxAcknowledged: options.maxWaitingEvents ?? MAX_WAITING_EVENTS,
    maxBatch: EVENTS_PER_JOB,
    onUnavailable: () => deps.metrics.ingestRejected.inc({ reason: 'queue_full' }),
    apply: options.applyItems ?? ((tx, items) => applyTrackerItems(tx, items)),
  });
  const feature: Feature = {
    name: 'analytics',
    routes(app) {
      registerTrackerScript(app, deps);
      registerIngest(app, deps, { queue, sites, visitors, shared });
      registerAnalyticsReads(app, deps, { sites, shared });
      registerSites(app, engine, sites);
    },
    start() {
      housekeeping.start();
    },
    async stop() {
      housekeeping.stop();
      await queue.close();
    },
  };
  // `pruned`: resolves once the housekeeping pass under way, if any, is done.
  return { feature, sites, pruned: housekeeping.idle };
}
