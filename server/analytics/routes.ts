import type { FastifyInstance } from 'fastify';
import {
  type AnalyticsList,
  type AnalyticsListRead,
  type AnalyticsRead,
  analyticsLists,
} from '../../protocol/analytics.ts';
import { trustedProxies } from '../auth/client-address.ts';
import type { Deps } from '../deps.ts';
import { parseRange } from '../http/range.ts';
import { invalid, notFound } from '../problem.ts';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './lists.ts';
import { readAnalytics, readAnalyticsList, siteOf } from './read.ts';
import type { SharedAddressWatch } from './shared-address.ts';
import type { Sites } from './types.ts';

type Query = { Querystring: Record<string, string | undefined> };

/** The longest `search`: as long as the longest value stored (a URL). */
const MAX_SEARCH_LENGTH = 2048;

/** A query value given once; a repeated one is refused rather than one of them picked. */
function single(query: Query['Querystring'], field: string): string | undefined {
  const value: unknown = query[field];
  if (value !== undefined && typeof value !== 'string') throw invalid(field, 'must be given once');
  return value;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIST_LIMIT;
  const n = Number(value);
  if (!/^\d{1,4}$/.test(value) || n < 1 || n > MAX_LIST_LIMIT) {
    throw invalid('limit', `must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  return n;
}

function parseSearch(value: string | undefined): string | undefined {
  if (value !== undefined && value.length > MAX_SEARCH_LENGTH) {
    throw invalid('search', `must be at most ${MAX_SEARCH_LENGTH} characters`);
  }
  return value;
}

const isList = (value: string): value is AnalyticsList =>
  (analyticsLists as readonly string[]).includes(value);

/** `GET /api/v1/analytics` and `GET /api/v1/analytics/{list}` (docs/analytics.md "Reading analytics"). */
export function registerAnalyticsReads(
  app: FastifyInstance,
  deps: Deps,
  services: { sites: Sites; shared: SharedAddressWatch },
): void {
  const trusted = (peer: string) => trustedProxies(deps.config.current().server.trustedProxies).has(peer);

  app.get<Query>('/api/v1/analytics', async (request): Promise<AnalyticsRead> => {
    const now = deps.clock.now();
    const range = parseRange(request.query, now);
    const site = siteOf(services.sites, single(request.query, 'site'));
    return readAnalytics(deps.store.read, {
      site,
      sites: services.sites,
      range,
      now,
      sharedAddress: site ? services.shared.of(site.domain, now, trusted) : { forwarded: null, proxy: null },
    });
  });

  app.get<{ Params: { list: string } } & Query>(
    '/api/v1/analytics/:list',
    async (request): Promise<AnalyticsListRead> => {
      const { list } = request.params;
      // The list is part of the path: a list mon does not have is a path it does not have.
      if (!isList(list)) throw notFound(`no list ${list}; lists: ${analyticsLists.join(', ')}`);
      const now = deps.clock.now();
      const range = parseRange(request.query, now);
      const limit = parseLimit(single(request.query, 'limit'));
      const search = parseSearch(single(request.query, 'search'));
      const site = siteOf(services.sites, single(request.query, 'site'));
      return readAnalyticsList(deps.store.read, { site, list, range, now, search, limit });
    },
  );
}
