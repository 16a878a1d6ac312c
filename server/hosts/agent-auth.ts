import type { FastifyRequest } from 'fastify';
import { RateLimiter } from '../auth/rate-limit.ts';
import type { Clock } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { logSecurity, routeOf } from '../http/security-log.ts';
import { Problem, tooMany } from '../problem.ts';
import { exists } from '../store/rows.ts';
import { hostByToken, hostTokenHash, type TokenBy } from './store.ts';

/**
 * Who an agent request comes from: `Authorization: Bearer bth_…`, looked up by its hash, and who made
 * the token. A missing token is a 401; a token that names no host is a 401 and a security event (never
 * with the token).
 */
export function agentHost(
  deps: Deps,
  request: FastifyRequest,
): { host: string; tokenHash: string; tokenBy: TokenBy } {
  const header = request.headers.authorization;
  const token = header ? /^Bearer[ \t]+(\S+)\s*$/i.exec(header)?.[1] : undefined;
  if (token === undefined) {
    throw new Problem(401, 'sign-in required', 'send the host token as Authorization: Bearer bth_…');
  }
  const host = hostByToken(deps.store.read, token);
  if (!host) {
    logSecurity(deps, request, 'host.rejected', { method: request.method, route: routeOf(request) });
    throw tokenNotValid();
  }
  return { host: host.name, tokenHash: hostTokenHash(token), tokenBy: host.tokenBy };
}

/** Whether `tokenHash` is still the host's token (a new token stops the old one at once). */
export function tokenHolds(deps: Deps, host: string, tokenHash: string): boolean {
  return exists(deps.store.read, 'SELECT 1 FROM hosts WHERE name = ? AND token_hash = ?', host, tokenHash);
}

export const tokenNotValid = () => new Problem(401, 'sign-in required', 'the host token is not valid');

/**
 * A token bucket per host: `burst` requests at once (an agent sending what it kept during an outage),
 * then `perSecond`. Beyond, 429 with Retry-After.
 */
export function hostLimiter(clock: Clock, burst: number, perSecond: number) {
  const limiter = new RateLimiter({ burst, perSecond, clock });
  return (host: string, what: string): void => {
    const decision = limiter.take(host);
    if (!decision.ok) {
      throw tooMany(decision.retryAfter, `${host} sends ${what} faster than ${perSecond * 60} a minute`);
    }
  };
}
