import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';
import type { RouteHeaders } from '../http/headers.ts';
import { escapeHtml } from '../notify/text.ts';

/**
 * The tracking script (`tracker/b.js`) served at `/b.js` and `/script.js`, and the snippet that loads
 * it. What is served is `tracker/b.min.js`, the minified form committed beside the source: rolldown,
 * which makes it (`node server/analytics/tracker/build.ts`), is a dev dependency an install for
 * running mon does not have, and a test holds the file to the source.
 */
export const TRACKER_SOURCE = join(import.meta.dirname, 'tracker', 'b.js');
export const TRACKER_MINIFIED = join(import.meta.dirname, 'tracker', 'b.min.js');

/** An hour: a new version of the script reaches the sites' visitors within it. */
const CACHE_CONTROL = 'public, max-age=3600';

type Served = { text: string; gzipped: Buffer; etag: string };
let served: Promise<Served> | null = null;

/** Read, compressed and tagged once; a failure is not kept, so the next request tries again. */
function servedScript(): Promise<Served> {
  served ??= (async () => {
    const text = await readFile(TRACKER_MINIFIED, 'utf8');
    const gzipped = await promisify(gzip)(text, { level: 9 });
    // Weak: the gzipped and the plain answer are the same script.
    const etag = `W/"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
    return { text, gzipped, etag };
  })().catch((error: unknown) => {
    served = null;
    throw error;
  });
  return served;
}

/** The script as served (minified). */
export async function trackerScript(): Promise<string> {
  return (await servedScript()).text;
}

/** The `<script>` tag a site's pages carry: served from `base` (mon's public address), for `domain`. */
export function trackerSnippet(base: string, domain: string): string {
  return `<script defer src="${escapeHtml(`${base}/b.js`)}" data-domain="${escapeHtml(domain)}"></script>`;
}

/**
 * `GET /b.js` and `GET /script.js`: the same script for anyone, cached by browsers for an hour,
 * loadable by pages of any origin (no panel policy on it; CORS allowed for tags with `crossorigin` or
 * `type="module"`), gzipped for clients that take it.
 */
export function registerTrackerScript(app: FastifyInstance, _deps: Deps): void {
  const headers: RouteHeaders = { 'content-security-policy': null, 'cache-control': CACHE_CONTROL };
  for (const path of ['/b.js', '/script.js']) {
    app.get(path, { config: { headers } }, async (request, reply) => {
      const script = await servedScript();
      reply
        .header('etag', script.etag)
        .header('vary', 'accept-encoding')
        .header('cross-origin-resource-policy', 'cross-origin')
        // A tag with `crossorigin` (which `integrity` needs) or `type="module"` loads it in CORS mode.
        .header('access-control-allow-origin', '*');
      if (matchesEtag(request.headers['if-none-match'], script.etag)) return reply.code(304).send();
      reply.type('text/javascript; charset=utf-8');
      if (acceptsGzip(request.headers['accept-encoding']))
        return reply.header('content-encoding', 'gzip').send(script.gzipped);
      return reply.send(script.text);
    });
  }
}

/** If-None-Match by weak comparison (RFC 9110 13.1.2): `W/` aside, the tags are equal, or `*`. */
function matchesEtag(header: string | undefined, etag: string): boolean {
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return (header ?? '').split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

/** Whether Accept-Encoding takes gzip: listed (or `x-gzip`) without `q=0`. */
function acceptsGzip(header: string | undefined): boolean {
  return (header ?? '').split(',').some((part) => {
    const [coding, ...params] = part.split(';').map((p) => p.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    return (coding === 'gzip' || coding === 'x-gzip') && (q === undefined || Number(q.slice(2)) > 0);
  });
}
