import type { FastifyInstance } from 'fastify';
import type { Principal } from '../auth/access.ts';
import type { Deps } from '../deps.ts';
import { everyAnswer } from '../http/headers.ts';
import { tooMany, unavailable } from '../problem.ts';
import { StreamHub, type StreamOptions } from './stream.ts';

/**
 * `GET /api/v1/stream` (access read): server-sent events with `{invalidate: [...]}` from the bus.
 * The 65th simultaneous stream gets 503, a session's or token's 9th 429, both with Retry-After;
 * clients reconnect after it.
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
    const opened = hub.open(
      {
        write: (chunk) => raw.write(chunk),
        end: () => raw.end(),
        allowed: () => stillValid(request.principal),
      },
      ownerOf(request.principal),
    );
    if ('refused' in opened) {
      if (opened.refused === 'owner') {
        throw tooMany(5, `one session or token can hold at most ${hub.maxPerOwner} live update streams`);
      }
      throw unavailable(5, `at most ${hub.max} live update streams can be open at once; try again shortly`);
    }
    reply.hijack();
    // A hijacked answer skips the app's onSend hook: its headers are all written here.
    raw.writeHead(200, {
      ...everyAnswer,
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    // Sends the headers at once so that the client sees the stream open.
    raw.flushHeaders();
    request.raw.socket.setNoDelay(true);
    request.raw.on('close', opened.close);
    raw.on('close', opened.close);
  });
  return hub;
}

/** Whose share of the streams a request takes: its session, its token, or a forward-auth person. */
function ownerOf(principal: Principal | null): string {
  if (!principal) return 'nobody';
  if (principal.kind === 'token') return `token:${principal.tokenId}`;
  return principal.sessionId ? `session:${principal.sessionId}` : `user:${principal.user.id}`;
}
