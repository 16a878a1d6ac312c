import type { FastifyInstance } from 'fastify';
import { notFound } from '../problem.ts';
import { readService, readServices } from './detail.ts';
import type { CheckEngine } from './engine.ts';

/** `GET /api/v1/services` and `GET /api/v1/services/{name}`. */
export function registerServices(app: FastifyInstance, engine: CheckEngine): void {
  app.get('/api/v1/services', async () => readServices(engine));

  app.get<{ Params: { name: string } }>('/api/v1/services/:name', async (request) => {
    const service = readService(engine, request.params.name);
    if (!service) throw notFound(`no service ${request.params.name}`);
    return service;
  });
}
