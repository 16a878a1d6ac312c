import type { FastifyRequest } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { tooMany } from '../problem.ts';
import { clientAddress, rateKey, trustedProxies } from './client-address.ts';
import { OidcFlows } from './oidc-flows.ts';
import { PasswordHasher } from './passwords.ts';
import { RateLimiter } from './rate-limit.ts';

/**
 * The accounts feature's state for one server: password hasher (2 at once), sign-in rate limits,
 * OpenID Connect flows in progress and the setup token. Made once by the feature (auth/feature.ts).
 */
export type AuthState = {
  /** Replaceable so tests can use cheaper argon2 parameters. */
  hasher: PasswordHasher;
  /** Sign-in and setup attempts per client address: bursts of 10, then 1 per second. */
  signIns: RateLimiter;
  oidc: OidcFlows;
  /** The setup token while the first account is not made yet; null once spent. */
  setupToken: string | null;
};

export function createAuthState(clock: Clock): AuthState {
  return {
    hasher: new PasswordHasher(),
    signIns: new RateLimiter({ burst: 10, perSecond: 1, clock }),
    oidc: new OidcFlows(clock),
    setupToken: null,
  };
}

/** The client's address, honoring X-Forwarded-For only from `trusted_proxies`. */
export function clientOf(deps: Pick<Deps, 'config'>, request: FastifyRequest): string {
  return clientAddress(request, trustedProxies(deps.config.current().server.trustedProxies));
}

/** Counts a sign-in or setup attempt of the request's client; throws 429 beyond the limit. */
export function countSignIn(deps: Deps, auth: AuthState, request: FastifyRequest): void {
  const decision = auth.signIns.take(rateKey(clientOf(deps, request)));
  if (!decision.ok) throw tooMany(decision.retryAfter, 'too many sign-in attempts');
}
