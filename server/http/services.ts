import type { FastifyInstance } from 'fastify';
import { readService, readServices } from '../checks/detail.ts';
import { checkEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { notFound } from '../problem.ts';

/** `GET /api/v1/services` and `GET /api/v1/services/{name}`. */
export function registerServices(app: FastifyInstance, deps: Deps): void {
  app.get('/api/v1/services', async () => readServices(checkEngine(deps)));

  app.get<{ Params: { name: string } }>('/api/v1/services/:name', async (request) => {
    const service = readService(checkEngine(deps), request.params.name);
    if (!service) throw notFound(`no service ${request.params.name}`);
    return service;
  });
}
