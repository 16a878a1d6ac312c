import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AnalyticsList,
  AnalyticsListRead,
  AnalyticsRead,
  SiteBody,
  SiteCreated,
} from '../../../../protocol/analytics.ts';
import { del, enc, get, post } from '../../lib/api.ts';
import { navigate } from '../../lib/router.tsx';
import { serviceKeys } from '../services/keys.ts';
import { analyticsKeys, type ListQuery, type Range } from './keys.ts';

/** The analytics read of a site (null: the first site mon knows) over a range. */
export function useAnalytics(site: string | null, range: Range) {
  return useQuery({
    queryKey: analyticsKeys.read(site, range),
    queryFn: () => get<AnalyticsRead>(`/analytics?range=${range}${site ? `&site=${enc(site)}` : ''}`),
    // A new range or site keeps showing the previous one until it arrives.
    placeholderData: (previous) => previous,
  });
}

/** One top list beyond its ten rows: the values matching `search`, at most `limit` of them. */
export function useAnalyticsList(site: string, list: AnalyticsList, range: Range, query: ListQuery) {
  return useQuery({
    queryKey: analyticsKeys.list(site, list, range, query),
    queryFn: () =>
      get<AnalyticsListRead>(
        `/analytics/${list}?site=${enc(site)}&range=${range}&search=${enc(query.search)}&limit=${query.limit}`,
      ),
    placeholderData: (previous) => previous,
  });
}

/**
 * Adds a site (its service when missing, and the check if any) in one step. The answer holds the
 * snippet: the caller keeps it in its own state, shown once.
 */
export function addSite(body: SiteBody): Promise<SiteCreated> {
  return post<SiteCreated>('/sites', body);
}

/** Reloads what a new site changes: the analytics reads (their list of sites) and the services. */
export function useRefreshSites(): () => Promise<void> {
  const client = useQueryClient();
  return async () => {
    await client.invalidateQueries({ queryKey: analyticsKeys.all });
    void client.invalidateQueries({ queryKey: serviceKeys.list });
  };
}

/** Removes the site with its data (a 409 says mon.toml names it), then shows the first site left. */
export function useRemoveSite(domain: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => del(`/sites/${enc(domain)}`),
    onSuccess: () => {
      navigate('/analytics');
      void client.invalidateQueries({ queryKey: analyticsKeys.all });
      void client.invalidateQueries({ queryKey: serviceKeys.list });
    },
  });
}
