import type { FastifyInstance } from 'fastify';
import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';

/** The host routes of the JSON API: hosts, their alerts, container and unit series, discovered items. */
export function registerHostRoutes(_app: FastifyInstance, _deps: Deps, _engine: CheckEngine): void {}
