import type { FastifyRequest } from 'fastify';
import { rateKey } from '../auth/client-address.ts';
import { RateLimiter } from '../auth/rate-limit.ts';
import { clientOf } from '../auth/service.ts';
import type { Deps } from '../deps.ts';
import { routeOf } from '../http/security-log.ts';
import { securitySummary } from '../http/security-summary.ts';
import { Problem, tooMany, tooManyOnce } from '../problem.ts';
import { exists } from '../store/rows.ts';
import { hostByToken, hostTokenHash, type TokenBy } from './store.ts';

/**
 * Requests refused for their token (missing, or naming no host) that one address may send: a burst of
 * 30, then one a second; beyond, every agent request of the address answers 429 before its token is
 * looked at. Only refused tokens are charged: the agents of many hosts behind one address (a NAT, a
 * proxy not in `trusted_proxies`) are limited per host, never by each other. An agent whose token was
 * replaced retries about twice a minute once its backoff is long, so dozens of them fit.
 */
export const REFUSED_TOKENS_BURST = 30;
export const REFUSED_TOKENS_PER_SECOND = 1;

export type AgentCaller = { host: string; tokenHash: string; tokenBy: TokenBy };

export type AgentGate = {
  /** First of all on an agent route: 429 when the request's address sent too many refused tokens. */
  admit(request: FastifyRequest): void;
  /**
   * Who an agent request comes from: `Authorization: Bearer bth_…`, looked up by its hash. A missing
   * token or one that names no host is a 401, charged to the address; one that names no host is also
   * the security event `host.rejected` (never with the token), summarised per address.
   */
  host(request: FastifyRequest): AgentCaller;
  /**
   * A token bucket per host: `burst` requests at once (an agent sending what it kept during an outage),
   * then `perSecond`; or, with a `cost` per call, as many bytes, `rate` naming the pace in the 429's
   * detail. Beyond, 429 with Retry-After.
   */
  hostLimiter(
    burst: number,
    perSecond: number,
    rate?: string,
  ): (request: FastifyRequest, host: string, what: string, cost?: number) => void;
  /** Writes the counts of the summarised events (the server is stopping). */
  stop(): void;
};

/**
 * The agent routes' way in (`/agent/v1/frames`, `/agent/v1/poll`). Their refusals are security events
 * that a flood repeats at every request, so they are summarised per address (`security-summary.ts`):
 * a line at the first, then one a minute at most with a `count`. The app's error handler leaves their
 * 429s to this gate.
 */
export function createAgentGate(deps: Deps): AgentGate {
  const refused = new RateLimiter({
    burst: REFUSED_TOKENS_BURST,
    perSecond: REFUSED_TOKENS_PER_SECOND,
    clock: deps.clock,
  });
  const rejected = securitySummary(deps, 'host.rejected');
  const limited = securitySummary(deps, 'rate.limited');
  const where = (request: FastifyRequest) => ({ method: request.method, route: routeOf(request) });
  const refuse = (request: FastifyRequest, problem: Problem): Problem => {
    limited.note(request, { ...where(request), detail: problem.detail ?? problem.title });
    return problem;
  };
  const refusedProblem = tooManyOnce(
    'too many requests with a host token that names no host from this address',
  );

  return {
    admit(request) {
      const decision = refused.check(rateKey(clientOf(deps, request)));
      if (!decision.ok) throw refuse(request, refusedProblem(decision.retryAfter));
    },
    host(request) {
      const header = request.headers.authorization;
      const token = header ? /^Bearer[ \t]+(\S+)\s*$/i.exec(header)?.[1] : undefined;
      if (token === undefined) {
        refused.take(rateKey(clientOf(deps, request)));
        throw new Problem(401, 'sign-in required', 'send the host token as Authorization: Bearer bth_…');
      }
      const host = hostByToken(deps.store.read, token);
      if (!host) {
        refused.take(rateKey(clientOf(deps, request)));
        rejected.note(request, where(request));
        throw tokenNotValid();
      }
      return { host: host.name, tokenHash: hostTokenHash(token), tokenBy: host.tokenBy };
    },
    hostLimiter(burst, perSecond, rate = `${perSecond * 60} a minute`) {
      const limiter = new RateLimiter({ burst, perSecond, clock: deps.clock });
      return (request, host, what, cost = 1) => {
        const decision = limiter.take(host, cost);
        if (!decision.ok) {
          throw refuse(request, tooMany(decision.retryAfter, `${host} sends ${what} faster than ${rate}`));
        }
      };
    },
    stop() {
      rejected.stop();
      limited.stop();
    },
  };
}

/** Whether `tokenHash` is still the host's token (a new token stops the old one at once). */
export function tokenHolds(deps: Deps, host: string, tokenHash: string): boolean {
  return exists(deps.store.read, 'SELECT 1 FROM hosts WHERE name = ? AND token_hash = ?', host, tokenHash);
}

export const tokenNotValid = () => new Problem(401, 'sign-in required', 'the host token is not valid');
