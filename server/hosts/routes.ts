import type { FastifyInstance } from 'fastify';
import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { registerStandInRoutes } from './stand-ins.ts';

/** The host routes of the JSON API: hosts, their alerts, container and unit series, discovered items. */
export function registerHostRoutes(app: FastifyInstance, deps: Deps, engine: CheckEngine): void {
  registerStandInRoutes(app, deps, engine);
}
