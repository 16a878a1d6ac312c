import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/access.ts';
import { clientOf } from '../auth/service.ts';
import type { Deps } from '../deps.ts';

/**
 * Security events: each is one log line with `security: <event>`, the client's `address`, who was
 * signed in (`user`, or `tokenId` and `tokenLabel`) and the event's own fields. Never a password, a
 * token's text or a cookie: callers pass names and ids only.
 */
const events = {
  'signin.failed': { level: 'warn', message: 'sign-in failed' },
  'token.rejected': { level: 'warn', message: 'an unknown API token was sent' },
  'host.rejected': { level: 'warn', message: 'an unknown host token was sent' },
  'access.refused': { level: 'warn', message: 'access refused' },
  'rate.limited': { level: 'warn', message: 'rate limit reached' },
  'setup.completed': { level: 'info', message: 'first account created' },
  'password.changed': { level: 'info', message: 'own password changed' },
  'user.created': { level: 'info', message: 'account created' },
  'user.changed': { level: 'info', message: 'account changed' },
  'user.deleted': { level: 'info', message: 'account removed' },
  'token.created': { level: 'info', message: 'API token created' },
  'token.revoked': { level: 'info', message: 'API token revoked' },
  'host.token.created': { level: 'info', message: 'host token made' },
  'host.removed': { level: 'info', message: 'host removed, its token revoked' },
} as const satisfies Record<string, { level: 'info' | 'warn'; message: string }>;

export type SecurityEvent = keyof typeof events;

export const securityEvents = Object.keys(events) as SecurityEvent[];

export type SecurityFields = Record<string, string | number | boolean | null>;

export function logSecurity(
  deps: Pick<Deps, 'log' | 'config'>,
  request: FastifyRequest,
  event: SecurityEvent,
  fields: SecurityFields = {},
): void {
  writeSecurity(deps, event, clientOf(deps, request), request.principal, fields);
}

/** One security event's line, for a request already gone (a summary of repeated events). */
export function writeSecurity(
  deps: Pick<Deps, 'log'>,
  event: SecurityEvent,
  address: string,
  principal: Principal | null,
  fields: SecurityFields,
): void {
  const { level, message } = events[event];
  deps.log[level](message, { security: event, address, ...actorOf(principal), ...fields });
}

function actorOf(principal: Principal | null): Record<string, string> {
  if (!principal) return {};
  if (principal.kind === 'token') return { tokenId: principal.tokenId, tokenLabel: principal.label };
  return { user: principal.user.email };
}

/** The route pattern, never the URL: ping URLs carry their token. */
export function routeOf(request: FastifyRequest): string {
  return request.routeOptions.url ?? 'unknown route';
}
