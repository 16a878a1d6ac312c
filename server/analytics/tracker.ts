import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';

/**
 * The tracking script (`tracker/b.js`, minified once at start) served at `/b.js` and `/script.js`,
 * and the snippet that loads it.
 */
export function registerTrackerScript(app: FastifyInstance, deps: Deps): void {
  void app;
  void deps;
  // Stand-in until built: no route yet.
}

/** The `<script>` tag a site's pages carry: served from `base` (mon's public address), for `domain`. */
export function trackerSnippet(base: string, domain: string): string {
  const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<script defer src="${attr(`${base}/b.js`)}" data-domain="${attr(domain)}"></script>`;
}

/** The script as served (minified), built once and cached. */
export async function trackerScript(): Promise<string> {
  throw new Error('tracker: to be built');
}
