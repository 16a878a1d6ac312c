/**
 * Keys of the live update stream (SPEC "Live update stream"): the server's engines publish them after
 * commit, `GET /api/v1/stream` sends them as `{invalidate: [...]}`, and the panel refetches what they name.
 */

export type LiveKey =
  | '*'
  | 'overview'
  | 'incidents'
  | 'drafts'
  | 'analytics'
  | `service:${string}`
  | `incident:${string}`;

/** The keys, built one way everywhere. `all` (`*`) means everything. */
export const liveKeys = {
  all: '*',
  overview: 'overview',
  incidents: 'incidents',
  drafts: 'drafts',
  /**
   * Web analytics: stored tracker events (page views, visits, errors, Web Vitals) of any site; a
   * stream sends it at most once per 10 s (server/live/stream.ts).
   */
  analytics: 'analytics',
  /** A service, its checks, their detail and history. */
  service: (name: string) => `service:${name}` as const,
  incident: (id: string) => `incident:${id}` as const,
} as const;

/** The data of one stream event. */
export type LiveEvent = { invalidate: LiveKey[] };

const plain: ReadonlySet<string> = new Set([
  liveKeys.all,
  liveKeys.overview,
  liveKeys.incidents,
  liveKeys.drafts,
  liveKeys.analytics,
]);

/** Whether a value read from the stream is a key of this version (an unknown key is skipped, not guessed). */
export function isLiveKey(value: unknown): value is LiveKey {
  if (typeof value !== 'string') return false;
  return plain.has(value) || /^(service|incident):./s.test(value);
}
