import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { logSecurity, routeOf } from '../http/security-log.ts';
import { forbidden, Problem } from '../problem.ts';
import { exists, int, mapper, one } from '../store/rows.ts';
import { type Access, type Authenticator, ownAuthentication, type Principal, refusal } from './access.ts';
import { oidcAdmits, oidcRole } from './oidc.ts';
import { expectedOrigin, isWrite, originAllowed } from './origin.ts';
import { proxyIdentity, proxyPrincipal } from './proxy.ts';
import { findSession, sessionIdOf, touchSession } from './sessions.ts';
import { findToken, touchToken } from './tokens.ts';

/** Routes that anyone may call: bad credentials there mean "nobody", not an error. */
const open = new Set<Access>(['none', 'setup']);

const tokenTouchEveryMs = 60_000;
const sessionTouchEveryMs = 5 * 60_000;

/**
 * Finds the caller: a bearer token first (it takes precedence over a cookie), then a forward-auth
 * proxy's identity headers (only from trusted_proxies), then the session cookie.
 * Writes signed in by cookie or proxy must carry a matching Origin (bearer writes are exempt).
 * On routes that need a caller, a bad token is a 401, a refused person a 403; on open routes, nobody.
 */
export function createAuthenticator(deps: Deps): Authenticator {
  return async (request) => {
    const access = request.routeOptions.config.access ?? 'none';
    if (ownAuthentication.has(access)) return null;
    const strict = !open.has(access);
    try {
      const principal = await find(deps, request);
      // A person refused by role hears that (403 "only admins can do this"), not the Origin rule.
      if (principal?.kind === 'user' && isWrite(request.method) && refusal(access, principal) === null) {
        const url = deps.config.current().server.url;
        if (!originAllowed(request, url)) {
          // Kept on the request so that the refusal's log line names who it was.
          request.principal = principal;
          throw forbidden(`a signed-in write must come with Origin ${expectedOrigin(request, url)}`);
        }
      }
      return principal;
    } catch (error) {
      if (!strict && error instanceof Problem && (error.status === 401 || error.status === 403)) return null;
      throw error;
    }
  };
}

/** `Authorization: Bearer <token>`; undefined when the header is absent or another scheme. */
function bearerOf(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Bearer[ \t]+(\S*)\s*$/i.exec(header);
  return match ? match[1]! : undefined;
}

async function find(deps: Deps, request: FastifyRequest): Promise<Principal | null> {
  const now = deps.clock.now();
  const bearer = bearerOf(request);
  if (bearer !== undefined) {
    const token = findToken(deps.store.read, bearer);
    if (!token) {
      logSecurity(deps, request, 'token.rejected', { method: request.method, route: routeOf(request) });
      throw new Problem(401, 'sign-in required', 'the token is not valid');
    }
    if (token.lastUsedAt === null || now - token.lastUsedAt >= tokenTouchEveryMs) {
      deps.store.writer.run((db) => touchToken(db, token.id, now)).catch(() => {});
    }
    return { kind: 'token', tokenId: token.id, scope: token.scope, label: token.label };
  }

  const identity = proxyIdentity(deps, request);
  if (identity === 'invalid') throw forbidden('the proxy sent an identity that is not an email address');
  if (identity) {
    const principal = await proxyPrincipal(deps, request, identity);
    if (principal === 'denied') throw forbidden('this account may not sign in');
    return principal;
  }

  const sessionId = sessionIdOf(request);
  if (!sessionId) return null;
  const found = findSession(deps.store.read, sessionId, now);
  if (!found) return null;
  const { session, user } = found;
  let role = user.role;
  if (session.method.startsWith('oidc:')) {
    // A provider removed from the config, or rules that no longer admit the person, end their sessions.
    const name = session.method.slice(5);
    const provider = deps.config.current().auth.oidc.find((p) => p.name === name);
    if (!provider || !oidcAdmits(provider, user.email, user)) return null;
    role = oidcRole(provider, user);
  }
  if (now - session.lastSeenAt >= sessionTouchEveryMs) {
    deps.store.writer.run((db) => touchSession(db, session.idHash, now)).catch(() => {});
  }
  return {
    kind: 'user',
    via: 'session',
    sessionId: session.idHash.toString('hex'),
    user: { id: user.id, email: user.email, role },
  };
}

const sessionExpiry = mapper({ expiresAt: int }, (r) => r.expiresAt);

/**
 * Whether a caller found when a long-lived response began still holds: the session not ended or
 * expired, the token not revoked, the account not removed. The live stream asks before each write.
 */
export function stillValid(deps: Deps, principal: Principal | null): boolean {
  if (!principal) return false;
  const db = deps.store.read;
  if (principal.kind === 'token') {
    return exists(db, 'SELECT 1 FROM tokens WHERE id = ?', principal.tokenId);
  }
  if (principal.sessionId === null) {
    return exists(db, 'SELECT 1 FROM users WHERE id = ?', principal.user.id);
  }
  const expiresAt = one(
    db,
    'SELECT expires_at FROM sessions WHERE id_hash = ?',
    sessionExpiry,
    Buffer.from(principal.sessionId, 'hex'),
  );
  return expiresAt !== undefined && expiresAt > deps.clock.now();
}
