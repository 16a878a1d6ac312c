import type { FastifyRequest } from 'fastify';
import type { Role, TokenScope } from '../../protocol/accounts.ts';
import { adminsOnly, forbidden, type Problem, unauthorized } from '../problem.ts';

/**
 * Access terms of SPEC.md's route tables.
 * - `none`: anyone. `setup`: anyone; the handler checks the setup token.
 * - `session`: a signed-in person of any role (cookie or forward auth); never a token.
 * - `read`: session of any role, or a `read`/`write` token.
 * - `write`: admin session, or a `write` token; a viewer gets 403 "only admins can do this".
 * - `admin`: an admin's session only; no token.
 * - `deploy`, `mcp`: only a token of that scope.
 * - `host`, `ping`, `hmac`, `site`: the handler authenticates by host token, ping token in the URL,
 *   HMAC signature or known site.
 */
export type Access =
  | 'none'
  | 'setup'
  | 'session'
  | 'read'
  | 'write'
  | 'admin'
  | 'deploy'
  | 'mcp'
  | 'host'
  | 'ping'
  | 'hmac'
  | 'site';

/**
 * Routes whose handler authenticates by its own means (an agent's token, a ping URL, a signature, a
 * site's domain): mon's credentials are not even looked at, and the caller is nobody.
 */
const ownTerms = ['host', 'ping', 'hmac', 'site'] as const satisfies readonly Access[];
export const ownAuthentication: ReadonlySet<Access> = new Set<Access>(ownTerms);
const authenticatesItself = (access: Access): access is (typeof ownTerms)[number] =>
  ownAuthentication.has(access);

export { type Role, type TokenScope, tokenScopes } from '../../protocol/accounts.ts';

export type User = { id: string; email: string; role: Role };

/** Who is calling: a person (by session cookie or forward-auth proxy) or an API token. */
export type Principal =
  | { kind: 'user'; via: 'session' | 'proxy'; user: User; sessionId: string | null }
  | { kind: 'token'; tokenId: string; scope: TokenScope; label: string };

/** Finds the caller of a request; the accounts module implements it. Throws a Problem for a bad token. */
export type Authenticator = (request: FastifyRequest) => Promise<Principal | null>;

/**
 * The one access table: every route the server serves, with its access term. A route missing here
 * refuses to register, so no route can be added without deciding who may call it.
 */
export const accessTable = {
  // Outside the JSON API
  'GET /healthz': 'none',
  'GET /metrics': 'read',
  'GET /assets/*': 'none',
  'GET /ping/:token': 'ping',
  'POST /ping/:token': 'ping',
  'HEAD /ping/:token': 'ping',
  'GET /ping/:token/:suffix': 'ping',
  'POST /ping/:token/:suffix': 'ping',
  'HEAD /ping/:token/:suffix': 'ping',
  'GET /api/push/:token': 'ping',
  'POST /api/push/:token': 'ping',
  'POST /api/deploys': 'deploy',
  'POST /api/changes': 'deploy',
  'POST /hooks/codehost': 'hmac',
  'POST /agent/v1/frames': 'host',
  'GET /agent/v1/poll': 'host',
  // The one-file agent the install commands fetch
  'GET /agent/v1/agent.mjs': 'none',
  'GET /b.js': 'none',
  'GET /script.js': 'none',
  'POST /e': 'site',
  // The CORS preflight of an event sent with a header of the page's own fetch wrapper
  'OPTIONS /e': 'none',
  // Accounts
  'GET /api/v1/auth': 'none',
  'POST /api/v1/auth/setup': 'setup',
  'POST /api/v1/auth/login': 'none',
  'POST /api/v1/auth/logout': 'session',
  'GET /api/v1/auth/me': 'session',
  'GET /api/v1/auth/oidc/:provider': 'none',
  'GET /api/v1/auth/oidc/:provider/callback': 'none',
  'PUT /api/v1/auth/password': 'session',
  'GET /api/v1/users': 'admin',
  'POST /api/v1/users': 'admin',
  'PUT /api/v1/users/:id': 'admin',
  'DELETE /api/v1/users/:id': 'admin',
  'GET /api/v1/tokens': 'admin',
  'POST /api/v1/tokens': 'admin',
  'DELETE /api/v1/tokens/:id': 'admin',
  // Configuration
  'GET /api/v1/config/status': 'read',
  'GET /api/v1/config/export': 'write',
  // Checks and services
  'GET /api/v1/services': 'read',
  'GET /api/v1/services/:name': 'read',
  'POST /api/v1/checks': 'write',
  'GET /api/v1/checks/:id': 'read',
  'PUT /api/v1/checks/:id': 'write',
  'DELETE /api/v1/checks/:id': 'write',
  'GET /api/v1/checks/:id/detail': 'read',
  'GET /api/v1/checks/:id/history': 'read',
  'POST /api/v1/checks/:id/ping-url': 'write',
  // Incidents
  'GET /api/v1/incidents': 'read',
  'GET /api/v1/incidents/:id': 'read',
  'POST /api/v1/incidents/:id/ack': 'write',
  // Silences and maintenance windows
  'POST /api/v1/silences': 'write',
  'PUT /api/v1/silences/:id': 'write',
  'DELETE /api/v1/silences/:id': 'write',
  'POST /api/v1/maintenance': 'write',
  'PUT /api/v1/maintenance/:id': 'write',
  'DELETE /api/v1/maintenance/:id': 'write',
  // Overview and warnings
  'GET /api/v1/overview': 'read',
  'GET /api/v1/warnings': 'read',
  // Watchdog
  'GET /api/v1/watchdog': 'read',
  'PUT /api/v1/watchdog/edge': 'write',
  'DELETE /api/v1/watchdog/edge': 'write',
  'PUT /api/v1/watchdog/heartbeat-url': 'write',
  'DELETE /api/v1/watchdog/heartbeat-url': 'write',
  // Notifications
  'POST /api/v1/channels': 'write',
  'PUT /api/v1/channels/:name': 'write',
  'DELETE /api/v1/channels/:name': 'write',
  'POST /api/v1/channels/:name/test': 'write',
  'GET /api/v1/settings': 'read',
  // Hosts
  'POST /api/v1/hosts': 'write',
  'GET /api/v1/hosts': 'read',
  'GET /api/v1/hosts/:name': 'read',
  'PUT /api/v1/hosts/:name/alerts': 'write',
  'DELETE /api/v1/hosts/:name': 'write',
  'GET /api/v1/hosts/:name/containers/:container': 'read',
  'GET /api/v1/hosts/:name/units/:unit': 'read',
  'POST /api/v1/discovered/dismiss': 'write',
  'POST /api/v1/discovered/monitor': 'write',
  // Web analytics
  'GET /api/v1/analytics': 'read',
  'GET /api/v1/analytics/:list': 'read',
  'POST /api/v1/sites': 'write',
  'DELETE /api/v1/sites/:domain': 'write',
  // Live updates
  'GET /api/v1/stream': 'read',
} as const satisfies Record<string, Access>;

export type RouteKey = keyof typeof accessTable;

export function accessOf(method: string, url: string): Access | undefined {
  return (accessTable as Record<string, Access>)[`${method} ${url}`];
}

/** Decides whether `principal` may call a route with access term `access`; returns the refusal or null. */
export function refusal(access: Access, principal: Principal | null): Problem | null {
  if (access === 'none' || access === 'setup' || authenticatesItself(access)) return null;
  if (!principal) return unauthorized();
  if (principal.kind === 'token') {
    const { scope } = principal;
    if (access === 'read' && (scope === 'read' || scope === 'write')) return null;
    if (access === 'write' && scope === 'write') return null;
    if (access === 'deploy' && scope === 'deploy') return null;
    if (access === 'mcp' && scope === 'mcp') return null;
    return forbidden(`a ${scope} token cannot use this route`);
  }
  const { role } = principal.user;
  switch (access) {
    case 'session':
    case 'read':
      return null;
    case 'write':
    case 'admin':
      return role === 'admin' ? null : adminsOnly();
    case 'deploy':
    case 'mcp':
      return forbidden(`this route takes a ${access} token`);
  }
}
