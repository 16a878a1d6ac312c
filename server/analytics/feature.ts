import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { exists } from '../store/rows.ts';
import type { Tx } from '../store/writer.ts';
import { applyTrackerItems } from './apply.ts';
import { createAnalyticsHousekeeping } from './housekeeping.ts';
import { registerIngest } from './ingest.ts';
import { registerAnalyticsReads } from './routes.ts';
import { SharedAddressWatch } from './shared-address.ts';
import { purgeRemovedSites } from './site-removal.ts';
import { noteUnlisted } from './site-unlisted.ts';
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
  const apply = options.applyItems ?? applyTrackerItems;
  // An event queued before its site was removed (or taken out of mon.toml) is dropped, not stored.
  const known = (item: TrackerItem) => sites.find(item.site) !== null;
  const queue = deps.store.ingestQueue<TrackerItem>({
    maxAcknowledged: options.maxWaitingEvents ?? MAX_WAITING_EVENTS,
    maxBatch: EVENTS_PER_JOB,
    onUnavailable: () => deps.metrics.ingestRejected.inc({ reason: 'queue_full' }),
    apply: (tx, items) => apply(tx, items.every(known) ? items : items.filter(known)),
  });
  /** Removed sites' data, deleted in bounded jobs one purge after another (site-removal.ts). */
  let purging: Promise<void> = Promise.resolve();
  let stopping = false;
  const purgeRemoved = () => {
    purging = purging
      .then(() => purgeRemovedSites(deps))
      .then(
        () => {},
        (error: unknown) => {
          // A stop is not waited for by a purge: what is left goes at the next start.
          if (stopping) deps.log.info('removed sites not purged yet; the next start finishes it');
          else deps.log.warn('removed sites not purged', { error: String(error) });
        },
      );
    return purging;
  };
  // A site named again has its unlisted clock cleared, one taken out starts its own, from the reload.
  deps.config.onChange(() => {
    deps.store.writer
      .run((db) => {
        noteUnlisted(db, deps.config, deps.clock.now());
      })
      // The next housekeeping pass notes them as well.
      .catch(() => {});
  });
  const removed = (domain: string) => {
    shared.forget(domain);
    void purgeRemoved();
  };
  const feature: Feature = {
    name: 'analytics',
    routes(app) {
      registerTrackerScript(app, deps);
      registerIngest(app, deps, { queue, sites, visitors, shared });
      registerAnalyticsReads(app, deps, { sites, shared });
      registerSites(app, engine, sites, removed);
    },
    start() {
      // A removal a crash cut short goes on.
      if (exists(deps.store.read, 'SELECT 1 FROM sites_removed')) void purgeRemoved();
      housekeeping.start();
    },
    async stop() {
      stopping = true;
      housekeeping.stop();
      // A purge under way is not waited for (it may take half a minute): the next start finishes it.
      await queue.close();
    },
  };
  // `pruned`: resolves once the housekeeping pass under way, if any, is done; `purged`, once the
  // deletion of removed sites' data under way, if any, is.
  return { feature, sites, pruned: housekeeping.idle, purged: () => purging };
}
