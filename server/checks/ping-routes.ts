import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import { badRequest, notFound } from '../problem.ts';
import type { CheckEngine } from './engine.ts';
import { parseSuffix } from './heartbeats.ts';
import { hashToken } from './ping-tokens.ts';

type PingRequest = { Params: { token: string; suffix?: string } };
type PushRequest = { Params: { token: string }; Querystring: Record<string, unknown> };

/** Heartbeat pings: `/ping/<token>[/start|/fail|/<exit code>]` and `/api/push/<token>?status=…`. */
export function registerPing(app: FastifyInstance, deps: Deps, engine: CheckEngine): void {
  const find = (token: string) => {
    const id = /^btp_[\w-]{8,200}$/.test(token) ? engine.idForTokenHash(hashToken(token)) : undefined;
    const entry = id === undefined ? undefined : engine.get(id);
    if (!entry) throw notFound('unknown ping token');
    return entry;
  };

  void app.register(async (scope) => {
    // Ping bodies (job output, forms) of any type and size are read and dropped, never refused:
    // a job that posts its whole log must still count as a ping.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => {
      payload.on('data', () => {});
      payload.once('end', () => done(null));
      payload.once('error', (error) => done(error));
    });

    const ping = async (request: { params: PingRequest['Params'] }) => {
      const parsed = parseSuffix(request.params.suffix);
      if (!parsed) throw notFound('the suffix must be start, fail or an exit code from 0 to 255');
      const entry = find(request.params.token);
      const detail =
        parsed.exitCode !== null
          ? `exit code ${parsed.exitCode}`
          : parsed.kind === 'fail'
            ? 'failure ping'
            : parsed.kind === 'start'
              ? 'started'
              : 'ping';
      await engine.heartbeat(entry, parsed.kind, detail, null);
      deps.metrics.ingestAccepted.inc({ endpoint: 'ping' });
    };
    for (const url of ['/ping/:token', '/ping/:token/:suffix']) {
      scope.route<PingRequest>({
        method: ['GET', 'POST', 'HEAD'],
        url,
        exposeHeadRoute: false,
        handler: async (request, reply) => {
          await ping(request);
          return reply.header('Cache-Control', 'no-store').type('text/plain; charset=utf-8').send('OK');
        },
      });
    }

    for (const method of ['GET', 'POST'] as const) {
      scope.route<PushRequest>({
        method,
        url: '/api/push/:token',
        handler: async (request) => {
          const entry = find(request.params.token);
          const { status, msg, ping: latency } = singleValues(request.query);
          const ok = status === undefined || status === 'up';
          // A reported duration is kept when it is a plain number of at most 10 minutes; others are ignored.
          const reported =
            latency !== undefined && /^\d{1,9}(\.\d+)?$/.test(latency) ? Number(latency) : null;
          const latencyMs = reported !== null && reported <= 600_000 ? reported : null;
          const detail = (msg ?? '').slice(0, 500) || (ok ? 'push' : `push status ${status}`.slice(0, 500));
          await engine.heartbeat(entry, ok ? 'success' : 'fail', detail, latencyMs);
          deps.metrics.ingestAccepted.inc({ endpoint: 'ping' });
          return { ok: true };
        },
      });
    }
  });
}

/** Query values given once; a repeated key (`?msg=a&msg=b`) is a 400, not a guess. */
function singleValues(query: Record<string, unknown>): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(query)) {
    if (typeof value !== 'string') throw badRequest(`${key}: give it once`);
    out[key] = value;
  }
  return out;
}
