import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** The headers mon adds to its answers; a route may replace or drop each one (see `RouteHeaders`). */
export type SecurityHeader =
  | 'x-content-type-options'
  | 'referrer-policy'
  | 'content-security-policy'
  | 'cache-control';

/**
 * A route's own values, given as `config: { headers: {...} }` when it registers: a string replaces
 * mon's default, null sends none. A header the handler sets itself on the reply is kept as it is.
 */
export type RouteHeaders = Partial<Record<SecurityHeader, string | null>>;

/**
 * Sent with every answer. `same-origin`: links inside the panel keep their full referrer, while a
 * link to another site (a check's target, a provider) learns nothing of mon's addresses.
 */
export const everyAnswer = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
} as const;

/**
 * The panel's Content-Security-Policy: its own scripts, styles and API only, no plugins, no `<base>`,
 * and no page may frame it. Inline scripts run only when their SHA-256 is listed: `inlineScripts`
 * are those of the built index.html, hashed as they are served, so editing one cannot break it.
 */
export function panelPolicy(inlineScripts: readonly string[]): string {
  const hashes = inlineScripts.map((s) => `'sha256-${createHash('sha256').update(s).digest('base64')}'`);
  return [
    "default-src 'self'",
    ['script-src', "'self'", ...hashes].join(' '),
    "style-src 'self'",
    // The favicon is a data: URL.
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The text of each `<script>` element without `src` in an HTML page. */
export function inlineScriptsOf(html: string): string[] {
  const scripts: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
    if (!/\bsrc\s*=/i.test(match[1] ?? '')) scripts.push(match[2] ?? '');
  }
  return scripts;
}

/**
 * Adds mon's headers to every answer that goes through the reply (a hijacked answer such as the live
 * stream writes `everyAnswer` itself): nosniff, the referrer policy, the panel's policy, and
 * `Cache-Control: no-store` on JSON and on whatever answers a signed-in caller, so no shared or
 * browser cache keeps account data.
 */
export function addSecurityHeaders(app: FastifyInstance, policy: string): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    setSecurityHeaders(request, reply, policy);
    done(null, payload);
  });
}

/** mon's headers on one reply; what the route configured or set itself comes first. */
export function setSecurityHeaders(request: FastifyRequest, reply: FastifyReply, policy: string): void {
  // Answers to URLs the router could not read have no route options.
  const own = request.routeOptions?.config?.headers;
  const set = (name: SecurityHeader, value: string | null) => {
    const chosen = own && name in own ? own[name]! : value;
    if (chosen !== null && chosen !== undefined && !reply.hasHeader(name)) reply.header(name, chosen);
  };
  set('x-content-type-options', everyAnswer['x-content-type-options']);
  set('referrer-policy', everyAnswer['referrer-policy']);
  set('content-security-policy', policy);
  set('cache-control', privateAnswer(request, reply) ? 'no-store' : null);
}

function privateAnswer(request: FastifyRequest, reply: FastifyReply): boolean {
  const type = String(reply.getHeader('content-type') ?? '');
  return request.principal !== null || /^application\/(problem\+)?json/i.test(type);
}
