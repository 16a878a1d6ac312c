import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import type { SharedAddressWatch } from './shared-address.ts';
import type { Sites } from './types.ts';

/** `GET /api/v1/analytics` and `GET /api/v1/analytics/{list}`. */
export function registerAnalyticsReads(
  app: FastifyInstance,
  deps: Deps,
  services: { sites: Sites; shared: SharedAddressWatch },
): void {
  void app;
  void deps;
  void services;
  // Stand-in until built: no route yet.
}
