import type { FastifyInstance } from 'fastify';
import { sitesByService } from '../analytics/sites.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { parseRange } from '../http/range.ts';
import { notFound, unauthorized } from '../problem.ts';
import { acknowledge, principalName } from './acknowledge.ts';
import type { IncidentContext } from './lifecycle.ts';
import { readIncident, readIncidents } from './reads.ts';

type IdParams = { Params: { id: string } };
type Query = Record<string, string | undefined>;

/** Incident routes of the JSON API (SPEC "JSON API under /api/v1", docs/incidents.md). */
export function registerIncidents(
  app: FastifyInstance,
  deps: Deps,
  ctx: IncidentContext,
  engine: CheckEngine,
): void {
  app.get<{ Querystring: Query }>('/api/v1/incidents', async (request) =>
    readIncidents(
      deps.store.read,
      ctx.graph(deps.store.read),
      parseRange(request.query, deps.clock.now(), '30d'),
    ),
  );

  app.get<IdParams>('/api/v1/incidents/:id', async (request) => {
    const statusOf = (checkId: string) => engine.get(checkId)?.rec.state.status ?? null;
    const sites = sitesByService(deps.store.read, deps.config.current().services);
    const { id } = request.params;
    const incident = readIncident(
      deps.store.read,
      ctx.graph(deps.store.read),
      statusOf,
      (service) => sites.get(service) ?? [],
      id,
      deps.clock.now(),
    );
    if (!incident) throw notFound(`no incident ${id}`);
    return incident;
  });

  app.post<IdParams>('/api/v1/incidents/:id/ack', async (request, reply) => {
    // The access hook let only write callers through.
    if (!request.principal) throw unauthorized();
    await acknowledge(deps, ctx, request.params.id, principalName(request.principal));
    return reply.code(204).send();
  });
}
