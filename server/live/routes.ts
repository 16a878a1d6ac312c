import type { FastifyInstance } from 'fastify';
import type { Principal } from '../auth/access.ts';
import type { Deps } from '../deps.ts';
import { unavailable } from '../problem.ts';
import { StreamHub, type StreamOptions } from './stream.ts';

/**
 * `GET /api/v1/stream` (access read): server-sent events with `{invalidate: [...]}` from the bus.
 * The 65th simultaneous stream gets 503 with Retry-After; clients reconnect after it.
 */
export function registerStream(
  app: FastifyInstance,
  deps: Pick<Deps, 'bus' | 'clock'>,
  stillValid: (principal: Principal | null) => boolean,
  options: StreamOptions = {},
): StreamHub {
  const hub = new StreamHub(deps.bus, deps.clock, options);
  // Streams never finish on their own: end them before the server waits for open requests.
  app.addHook('preClose', async () => hub.dispose());

  // No automatic HEAD route: a HEAD must not hold one of the stream slots.
  app.get('/api/v1/stream', { exposeHeadRoute: false }, (request, reply) => {
    const raw = reply.raw;
    const close = hub.open({
      write: (chunk) => raw.write(chunk),
      end: () => raw.end(),
      allowed: () => stillValid(request.principal),
    });
    if (!close) {
      throw unavailable(5, `at most ${hub.max} live update streams can be open at once; try again shortly`);
    }
    reply.hijack();
    raw.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    // Sends the headers at once so that the client sees the stream open.
    raw.flushHeaders();
    request.raw.socket.setNoDelay(true);
    request.raw.on('close', close);
    raw.on('close', close);
  });
  return hub;
}
