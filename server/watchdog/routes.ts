import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { WatchdogRead } from '../../protocol/notify.ts';
import type { WatchdogService } from './service.ts';
import { tokenText, urlProblem, urlText } from './targets.ts';

/** Adds urlProblem's finding at `url`, where the answer's `detail` names it. */
const checkUrl = (body: { url: string; allowPrivate: boolean }, ctx: z.RefinementCtx) => {
  const problem = urlProblem(body.url, body.allowPrivate, 'allowPrivate');
  if (problem) ctx.addIssue({ code: 'custom', path: ['url'], message: problem });
};

const edgeBody = z
  .strictObject({
    url: urlText,
    token: tokenText.nullable().optional(),
    allowPrivate: z.boolean().default(false),
  })
  .superRefine(checkUrl);

const heartbeatBody = z
  .strictObject({ url: urlText, allowPrivate: z.boolean().default(false) })
  .superRefine(checkUrl);

/**
 * `GET /api/v1/watchdog` (read) and the writes of its two targets (write): PUT stores and answers 204,
 * the first request goes right after; PUT and DELETE answer 409 while mon.toml sets the same target.
 */
export function registerWatchdog(app: FastifyInstance, watchdog: WatchdogService): void {
  app.get('/api/v1/watchdog', async (): Promise<WatchdogRead> => watchdog.read());

  app.put('/api/v1/watchdog/edge', async (request, reply) => {
    await watchdog.put('edge', edgeBody.parse(request.body ?? {}));
    return reply.code(204).send();
  });

  app.delete('/api/v1/watchdog/edge', async (_request, reply) => {
    await watchdog.remove('edge');
    return reply.code(204).send();
  });

  app.put('/api/v1/watchdog/heartbeat-url', async (request, reply) => {
    await watchdog.put('heartbeat', heartbeatBody.parse(request.body ?? {}));
    return reply.code(204).send();
  });

  app.delete('/api/v1/watchdog/heartbeat-url', async (_request, reply) => {
    await watchdog.remove('heartbeat');
    return reply.code(204).send();
  });
}
