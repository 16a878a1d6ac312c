import type { Deps } from '../deps.ts';

/**
 * Visitor ids without cookies: a keyed hash (HMAC-SHA-256) of site, address and user agent with a
 * random salt of the UTC day, kept in `analytics_salts` (so a restart keeps today's ids) and deleted
 * 48 hours after its day began.
 */
export type VisitorIds = {
  /** The visitor id (hex) of this site, address and user agent at `now`. */
  idOf(site: string, address: string, userAgent: string, now: number): Promise<string>;
  /** Deletes salts of days that began more than 48 hours before `now` (a writer job). */
  prune(now: number): Promise<void>;
};

export function createVisitorIds(deps: Deps): VisitorIds {
  void deps;
  // Stand-in until built.
  return {
    idOf: async () => {
      throw new Error('visitors: to be built');
    },
    prune: async () => {},
  };
}
