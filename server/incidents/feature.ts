import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { graphOf } from './graph.ts';
import { type IncidentContext, incidentSubscriber } from './lifecycle.ts';
import { registerIncidents } from './routes.ts';

/**
 * Incidents: a transactional subscriber of domain events that opens, joins and resolves them, and
 * their routes. Created after the checks, whose statuses the incident read shows.
 */
export function createIncidents(deps: Deps, engine: CheckEngine) {
  const ctx: IncidentContext = {
    events: deps.events,
    graph: (db) => graphOf(db, deps.config.current().services),
  };
  // Subscribed while the server is composed: no check result is written before it.
  deps.events.subscribe(incidentSubscriber(ctx));
  const feature: Feature = {
    name: 'incidents',
    routes(app) {
      registerIncidents(app, deps, ctx, engine);
    },
  };
  return { feature };
}
