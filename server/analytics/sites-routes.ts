import type { FastifyInstance } from 'fastify';
import type { CheckEngine } from '../checks/engine.ts';
import type { Sites } from './types.ts';

/** `POST /api/v1/sites`: atomic; creates the service when missing and the check, if any; answers the snippet. */
export function registerSites(
  app: FastifyInstance,
  engine: CheckEngine,
  sites: Sites & { refresh(): void },
): void {
  void app;
  void engine;
  void sites;
  // Stand-in until built: no route yet.
}
