import type { AnalyticsList } from '../../../../protocol/analytics.ts';
import type { Range } from '../checks/keys.ts';

/** Ranges of the analytics page (`?range=` of the analytics read), as a check's. */
export { type Range, ranges } from '../checks/keys.ts';

/** What a page asks of a list's "more" view: a case-insensitive substring and how many rows. */
export type ListQuery = { search: string; limit: number };

/**
 * Query keys of analytics: everything starts with ['analytics'], so that the stream key `analytics`
 * (stored tracker events) reaches the page and its lists. `site` is null for "the first site".
 */
export const analyticsKeys = {
  all: ['analytics'] as const,
  read: (site: string | null, range: Range) => ['analytics', 'read', site, range] as const,
  list: (site: string, list: AnalyticsList, range: Range, query: ListQuery) =>
    ['analytics', 'list', site, list, range, query.search, query.limit] as const,
};
