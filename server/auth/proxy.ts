import type { FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { logSecurity } from '../http/security-log.ts';
import type { Principal } from './access.ts';
import { peerAddress, trustedProxies } from './client-address.ts';
import type { ProxyAuthConfig } from './config.ts';
import {
  emailSchema,
  insertUser,
  listedIn,
  madeInMon,
  touchSignIn,
  type UserRow,
  userByEmail,
} from './users.ts';

export type ProxyIdentity = { email: string; groups: string[] };

/** How often a forward-auth account's last sign-in time is refreshed. */
const touchEveryMs = 5 * 60_000;

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The identity a forward-auth proxy vouches for, read only when `[auth.proxy]` is set and the socket
 * peer is in `trusted_proxies`; from anyone else the headers are ignored.
 * Returns `invalid` when a trusted proxy sends an address that is not an email address.
 */
export function proxyIdentity(deps: Deps, request: FastifyRequest): ProxyIdentity | 'invalid' | null {
  const config = deps.config.current();
  const proxy = config.auth.proxy;
  if (!proxy) return null;
  if (!trustedProxies(config.server.trustedProxies).has(peerAddress(request))) return null;
  const raw = header(request, proxy.email_header);
  if (!raw) return null;
  const email = emailSchema.safeParse(raw);
  if (!email.success) return 'invalid';
  const groups = (header(request, proxy.groups_header) ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  return { email: email.data, groups };
}

/** Both lists empty: anyone the proxy vouches for. Otherwise listed people, domains and admins. */
export function proxyAdmits(proxy: ProxyAuthConfig, email: string, account: UserRow | null): boolean {
  if (proxy.allowed_emails.length === 0 && proxy.allowed_domains.length === 0) return true;
  return listedIn(proxy, email) || madeInMon(account);
}

export function proxyIsAdmin(proxy: ProxyAuthConfig, identity: ProxyIdentity): boolean {
  return proxy.admins.includes(identity.email) || identity.groups.some((g) => proxy.admin_groups.includes(g));
}

/**
 * The person behind a forward-auth request: their account is made on first sight (role viewer,
 * source `proxy`), so admins can see it, change its role or remove it. The effective role is admin
 * when the account's stored role is admin or the proxy configuration names them admin.
 */
export async function proxyPrincipal(
  deps: Deps,
  request: FastifyRequest,
  identity: ProxyIdentity,
): Promise<Principal | 'denied'> {
  const proxy = deps.config.current().auth.proxy!;
  const now = deps.clock.now();
  let account = userByEmail(deps.store.read, identity.email);
  const admin = proxyIsAdmin(proxy, identity);
  if (!admin && !proxyAdmits(proxy, identity.email, account)) return 'denied';
  if (!account) {
    const made = await deps.store.writer.run((db) => {
      const user = insertUser(db, {
        email: identity.email,
        role: 'viewer',
        password: null,
        source: 'proxy',
        now,
      });
      if (user) touchSignIn(db, user.id, now);
      return user;
    });
    if (made) {
      const { id, email, role, source } = made;
      logSecurity(deps, request, 'user.created', { userId: id, email, role, source });
    }
    // Made by a request of the same person running alongside: theirs is the account.
    account = made ?? userByEmail(deps.store.read, identity.email);
    if (!account) return 'denied';
  } else if (account.lastSignInAt === null || now - account.lastSignInAt >= touchEveryMs) {
    const id = account.id;
    deps.store.writer.run((db) => touchSignIn(db, id, now)).catch(() => {});
  }
  return {
    kind: 'user',
    via: 'proxy',
    sessionId: null,
    user: { id: account.id, email: account.email, role: admin ? 'admin' : account.role },
  };
}
