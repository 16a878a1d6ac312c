import type { FastifyInstance } from 'fastify';
import type { Overview, Warnings } from '../../protocol/overview.ts';
import { peerAddress, trustedProxies } from '../auth/client-address.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { parseRange } from '../http/range.ts';
import { allChannels } from '../notify/targets.ts';
import type { ForwardedWatch } from './forwarded.ts';
import { readOverview } from './read.ts';
import type { SharedHostCheck } from './shared-host.ts';

type Query = { Querystring: Record<string, string | undefined> };

/** `GET /api/v1/overview` and `GET /api/v1/warnings` (docs/api-overview.md). */
export function registerOverview(
  app: FastifyInstance,
  deps: Deps,
  engine: CheckEngine,
  watch: { forwarded: ForwardedWatch; sharedHost: SharedHostCheck },
): void {
  // Every request is counted, so that the share of those an untrusted proxy forwarded can be told.
  const trusted = (peer: string) => trustedProxies(deps.config.current().server.trustedProxies).has(peer);
  app.addHook('onRequest', (request, _reply, done) => {
    const peer = peerAddress(request);
    const untrusted = request.headers['x-forwarded-for'] !== undefined && !trusted(peer);
    watch.forwarded.note(deps.clock.now(), untrusted ? peer : null);
    done();
  });

  app.get<Query>(
    '/api/v1/overview',
    async (request): Promise<Overview> => readOverview(engine, parseRange(request.query, deps.clock.now())),
  );

  app.get('/api/v1/warnings', async (): Promise<Warnings> => {
    const config = deps.config.current();
    const now = deps.clock.now();
    return {
      sharedHost: await watch.sharedHost.check(config, engine, deps.env, now),
      channels: allChannels(deps.store.read, config).length,
      untrustedProxy: watch.forwarded.worst(now, trusted),
    };
  });
}
