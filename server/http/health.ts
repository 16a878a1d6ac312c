import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';

/** `/healthz` (liveness, no access) and `/metrics` (Prometheus text, read access). */
export function registerHealth(app: FastifyInstance, deps: Deps): void {
  app.get('/healthz', async (_request, reply) => {
    const reason = unhealthyReason(deps);
    reply.type('text/plain; charset=utf-8').header('Cache-Control', 'no-store');
    if (reason) return reply.code(503).header('Retry-After', '5').send(reason);
    return 'ok';
  });

  app.get('/metrics', async (_request, reply) => {
    const text = await deps.metrics.registry.metrics();
    return reply.type(deps.metrics.registry.contentType).send(text);
  });
}

function unhealthyReason(deps: Deps): string | null {
  if (!deps.store.writable()) {
    const why = deps.store.writer.failure;
    return why ? `database not writable: ${why}` : 'database not writable';
  }
  if (deps.store.writer.stalled()) return 'writer stalled';
  for (const check of deps.health) {
    const reason = check();
    if (reason) return reason;
  }
  return null;
}
