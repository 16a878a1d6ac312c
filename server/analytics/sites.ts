import type { Deps } from '../deps.ts';
import { all, mapper, text } from '../store/rows.ts';
import type { Sites } from './types.ts';

type Site = { domain: string; service: string };

const siteRow = mapper({ domain: text, service: text });

/**
 * Known sites: mon.toml's `[[service]] sites` and those added by `POST /api/v1/sites` (the `sites`
 * table); a domain in both is the file's. Kept in memory: renewed after each mon.toml that loads and
 * by `refresh()` after a site is added.
 */
export function createSites(deps: Deps): Sites & { refresh(): void } {
  let byDomain = new Map<string, Site>();
  const refresh = () => {
    const next = new Map<string, Site>();
    for (const row of all(deps.store.read, 'SELECT domain, service FROM sites', siteRow))
      next.set(row.domain, row);
    for (const s of deps.config.current().services) {
      for (const domain of s.sites) next.set(domain, { domain, service: s.name });
    }
    byDomain = new Map([...next].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  };
  refresh();
  deps.config.onChange(refresh);
  return {
    find: (domain) => byDomain.get(domain) ?? null,
    list: () => [...byDomain.values()],
    ofService: (service) => [...byDomain.values()].filter((s) => s.service === service).map((s) => s.domain),
    refresh,
  };
}
