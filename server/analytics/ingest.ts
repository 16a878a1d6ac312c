import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { MAX_TRACKER_BODY_BYTES } from '../../protocol/analytics.ts';
import { clientAddress, peerAddress, rateKey, trustedProxies } from '../auth/client-address.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import type { Deps } from '../deps.ts';
import type { rejectReasons } from '../metrics.ts';
import { forbidden, invalid, notFound, Problem, tooManyOnce } from '../problem.ts';
import type { IngestQueue } from '../store/ingest.ts';
import { createCountries } from './countries.ts';
import { trackerItem } from './enrich.ts';
import { readTrackerEvent } from './event-body.ts';
import { extensionField } from './extensions.ts';
import type { Forwarded, SharedAddressWatch } from './shared-address.ts';
import { siteName } from './sites.ts';
import type { Sites, TrackerItem } from './types.ts';
import { UserAgents } from './user-agents.ts';
import type { VisitorIds } from './visitors.ts';

/** Tracker events per visitor address (SPEC.md, Limits): a burst of 30, then 2 a second. */
export const TRACKER_BURST = 30;
export const TRACKER_PER_SECOND = 2;

type Reason = (typeof rejectReasons)[number];

/** Seconds a browser keeps the preflight's answer: two hours, the most Chromium keeps one. */
const PREFLIGHT_MAX_AGE = '7200';

/**
 * The refusals that say the same each time, made once: a flood of bots, of events for no site or from
 * one address asks for thousands a second, and each Problem is an Error with a stack to capture.
 */
const tooLarge = new Problem(413, 'body too large', 'the body is over 8 KiB');
const noSite = notFound('no site has this domain');
const isBot = forbidden('bots and automated browsers are not counted');
// Retry-After is 1 at 2 events a second (rate-limit.ts): this holds a value or two.
const tooManyEvents = tooManyOnce('too many events from this address');

/** Statuses fastify itself answers before the handler (a chunked body too large, a content type it does not read). */
const malformedStatuses = new Set([400, 413, 415]);

/** The known site of a tracker's domain: as sent, lowercased, or its bare domain for `www.`. */
export function knownSite(sites: Sites, domain: string): { domain: string; service: string } | null {
  const name = siteName(domain);
  return sites.find(name) ?? (name.startsWith('www.') ? sites.find(name.slice(4)) : null);
}

/**
 * `POST /e`: a tracker event. Refused (and counted in `mon_ingest_rejected_total{reason}`): a body over
 * 8 KiB or malformed (`invalid`), an unknown site (`unknown_site`), a bot or automated browser (`bot`),
 * an error from a browser extension (`extension`), a visitor address over its rate (`rate_limited`,
 * 429), storage unable to take it: a full queue, a lock held elsewhere, a stopping server (`queue_full`,
 * 503). Answered 204 only once the event is stored.
 *
 * Refusals are answered here rather than thrown: they are counted, never logged, so that a flood costs
 * little and no visitor's address reaches the log.
 */
export function registerIngest(
  app: FastifyInstance,
  deps: Deps,
  services: {
    queue: IngestQueue<TrackerItem>;
    sites: Sites;
    visitors: VisitorIds;
    shared: SharedAddressWatch;
  },
): void {
  const { queue, sites, visitors, shared } = services;
  const limiter = new RateLimiter({ burst: TRACKER_BURST, perSecond: TRACKER_PER_SECOND, clock: deps.clock });
  const agents = new UserAgents();
  const countries = createCountries(deps);
  const addresses = new WeakMap<FastifyRequest, string>();

  const refuse = (reply: FastifyReply, reason: Reason, problem: Problem) => {
    deps.metrics.ingestRejected.inc({ reason });
    if (problem.retryAfter !== undefined) reply.header('retry-after', String(problem.retryAfter));
    return reply.code(problem.status).type('application/problem+json').send(problem.body());
  };

  void app.register(async (scope) => {
    // The tracker sends JSON as text/plain (a simple request: no preflight); JSON is read here.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(['text/plain', 'application/json'], { parseAs: 'string' }, (_r, body, done) =>
      done(null, body),
    );

    // The page's fetch reads the answer only when the origin is allowed; every answer allows all.
    // Hooks on this path take callbacks rather than promises: each promise counts at its request rate.
    scope.addHook('onSend', (_request, reply, payload, done) => {
      reply.header('access-control-allow-origin', '*');
      done(null, payload);
    });

    // Before a byte of the body is read: its announced size, then the address's rate. A preflight
    // costs no event of the rate: the event it clears the way for is counted.
    scope.addHook('onRequest', (request, reply, done) => {
      if (Number(request.headers['content-length']) > MAX_TRACKER_BODY_BYTES) {
        refuse(reply, 'invalid', tooLarge);
        return;
      }
      if (request.method === 'OPTIONS') {
        done();
        return;
      }
      const address = clientAddress(request, trustedProxies(deps.config.current().server.trustedProxies));
      const decision = limiter.take(rateKey(address));
      if (!decision.ok) {
        refuse(reply, 'rate_limited', tooManyEvents(decision.retryAfter));
        return;
      }
      addresses.set(request, address);
      done();
    });

    scope.addHook('onError', async (_request, _reply, error) => {
      const status = (error as { statusCode?: number }).statusCode;
      if (!(error instanceof Problem) && status !== undefined && malformedStatuses.has(status)) {
        deps.metrics.ingestRejected.inc({ reason: 'invalid' });
      }
    });

    // A page whose own fetch wrapper adds a header (a CSRF token, a trace id), or a client posting
    // `application/json`, sends a preflight first: any origin, POST, any header. Browsers keep the
    // answer for two hours at most (Chromium's cap), so a visitor's events are not each preceded by one.
    scope.options('/e', { bodyLimit: MAX_TRACKER_BODY_BYTES }, (_request, reply) => {
      reply
        .code(204)
        .header('access-control-allow-methods', 'POST')
        .header('access-control-allow-headers', '*')
        .header('access-control-max-age', PREFLIGHT_MAX_AGE)
        .send();
    });

    scope.post('/e', async (request, reply) => {
      let read: ReturnType<typeof readTrackerEvent>;
      try {
        read = readTrackerEvent(request.body);
      } catch (error) {
        if (error instanceof Problem) return refuse(reply, 'invalid', error);
        throw error;
      }
      const { event, page } = read;
      const site = knownSite(sites, event.d);
      if (!site) return refuse(reply, 'unknown_site', noSite);
      const userAgent = request.headers['user-agent'];
      const traits = agents.of(userAgent);
      if (traits.bot || event.h === 1) {
        return refuse(reply, 'bot', isBot);
      }
      const extension = event.k === 'x' ? extensionField(event) : null;
      if (extension) {
        return refuse(reply, 'extension', invalid(extension, 'the error comes from a browser extension'));
      }
      const address = addresses.get(request)!;
      const ts = deps.clock.now();
      const id = visitors.idOf(site.domain, address, userAgent ?? '', ts);
      const visitor = typeof id === 'string' ? id : await id;
      const item = trackerItem(event, page, {
        site: site.domain,
        ts,
        visitor,
        traits,
        country: countries.of(address),
      });
      // Engagement may end a visit begun under yesterday's id and still going (30 idle minutes at
      // most since its last activity, however long ago midnight was): storage tells.
      if (item.event.kind === 'engage') {
        const before = visitors.dayBeforeIdOf(site.domain, address, userAgent ?? '', ts);
        if (before !== null) item.dayBeforeVisitor = before;
      }
      // Answered once stored; storage unable to take it rejects with 503 (counted by the queue as `queue_full`).
      await queue.submit(item);
      deps.metrics.ingestAccepted.inc({ endpoint: 'tracker' });
      shared.note(site.domain, ts, address, visitor, untrustedForward(deps, request));
      return reply.code(204).send();
    });
  });
}

/**
 * The peer and the X-Forwarded-For it sent, when it sent one and is not a trusted proxy (mon then
 * takes the peer for the visitor).
 */
function untrustedForward(deps: Deps, request: FastifyRequest): Forwarded | null {
  const header = request.headers['x-forwarded-for'];
  if (header === undefined) return null;
  const peer = peerAddress(request);
  if (trustedProxies(deps.config.current().server.trustedProxies).has(peer)) return null;
  return { peer, forwardedFor: Array.isArray(header) ? header.join(',') : header };
}
