import type { FastifyRequest } from 'fastify';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

export function isWrite(method: string): boolean {
  return !safeMethods.has(method);
}

/**
 * Cross-site request check for writes signed in by cookie or forward auth: `Origin` must equal the
 * public URL's origin, or name the request's `Host` when no URL is set.
 */
export function originAllowed(request: FastifyRequest, serverUrl: string | null): boolean {
  const header = request.headers.origin;
  if (typeof header !== 'string' || header === 'null') return false;
  let origin: URL;
  try {
    origin = new URL(header);
  } catch {
    return false;
  }
  if (serverUrl) {
    try {
      return origin.origin === new URL(serverUrl).origin;
    } catch {
      return false;
    }
  }
  const host = request.headers.host;
  if (!host) return false;
  try {
    // Parse the Host with the Origin's scheme so default ports compare equal (`a:80` and `http://a`).
    return new URL(`${origin.protocol}//${host}`).host === origin.host;
  } catch {
    return false;
  }
}

export function expectedOrigin(request: FastifyRequest, serverUrl: string | null): string {
  if (serverUrl) {
    try {
      return new URL(serverUrl).origin;
    } catch {
      return serverUrl;
    }
  }
  return `the request's host (${request.headers.host ?? 'none'})`;
}
