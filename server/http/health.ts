import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';

/** `/healthz` (liveness, no access) and `/metrics` (Prometheus text, read access). */
export function registerHealth(app: FastifyInstance, deps: Deps, features: readonly Feature[]): void {
  app.get('/healthz', async (_request, reply) => {
    const reason = unhealthyReason(deps, features);
    reply.type('text/plain; charset=utf-8').header('Cache-Control', 'no-store');
    if (reason) return reply.code(503).header('Retry-After', '5').send(reason);
    return 'ok';
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.text();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}

function unhealthyReason(deps: Deps, features: readonly Feature[]): string | null {
  // The cause (SQLite's message) goes to the log, not to this unauthenticated answer.
  if (!deps.store.writable()) return 'database not writable';
  if (deps.store.writer.stalled()) return 'writer stalled';
  for (const feature of features) {
    const reason = feature.health?.() ?? null;
    if (reason) return reason;
  }
  return null;
}
