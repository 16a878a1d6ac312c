import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import type { IngestQueue } from '../store/ingest.ts';
import type { SharedAddressWatch } from './shared-address.ts';
import type { Sites, TrackerItem } from './types.ts';
import type { VisitorIds } from './visitors.ts';

/**
 * `POST /e`: a tracker event. Refused (and counted in `mon_ingest_rejected_total{reason}`): a body over
 * 8 KiB or malformed (`invalid`), an unknown site (`unknown_site`), a bot or automated browser (`bot`),
 * an error from a browser extension (`extension`), a visitor address over its rate (`rate_limited`,
 * 429), a full queue (`queue_full`, 503). Answered 204 only once the event is stored.
 */
export function registerIngest(
  app: FastifyInstance,
  deps: Deps,
  services: {
    queue: IngestQueue<TrackerItem>;
    sites: Sites;
    visitors: VisitorIds;
    shared: SharedAddressWatch;
  },
): void {
  void app;
  void deps;
  void services;
  // Stand-in until built: no route yet.
}
