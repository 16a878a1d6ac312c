import type { DatabaseSync } from 'node:sqlite';
import type { FileService } from '../config/core.ts';
import type { Deps } from '../deps.ts';
import { all, mapper, text } from '../store/rows.ts';
import type { Sites } from './types.ts';

type Site = { domain: string; service: string; fromFile: boolean };

const siteRow = mapper({ domain: text, service: text }, (r): Site => ({ ...r, fromFile: false }));

/**
 * Known sites, sorted by domain: those added by `POST /api/v1/sites` (the `sites` table) and mon.toml's
 * `[[service]] sites`; a domain in both is the file's. Reads that have no `Sites` service at hand (the
 * services and incident reads, made before analytics) call this; it reads one small table.
 */
export function readSites(db: DatabaseSync, services: readonly FileService[]): Site[] {
  const byDomain = new Map<string, Site>();
  for (const row of all(db, 'SELECT domain, service FROM sites', siteRow)) byDomain.set(row.domain, row);
  for (const s of services) {
    for (const domain of s.sites) byDomain.set(domain, { domain, service: s.name, fromFile: true });
  }
  return [...byDomain.values()].sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
}

/** Each service's sites, sorted by domain (readSites). */
export function sitesByService(db: DatabaseSync, services: readonly FileService[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const site of readSites(db, services)) {
    const list = out.get(site.service) ?? [];
    list.push(site.domain);
    out.set(site.service, list);
  }
  return out;
}

/**
 * A domain as sites are known by: trimmed, lowercased, without the trailing dot of a fully qualified
 * name (`Shop.Example.` is shop.example). `POST /e` and `DELETE /api/v1/sites/{domain}` read it so.
 */
export function siteName(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, '');
}

/**
 * Known sites (readSites), kept in memory for `POST /e`: renewed after each mon.toml that loads and by
 * `refresh()` after a site is added or removed. `forget` drops one at once, in the removal's writer
 * job: tracker events applied after it in the same transaction are then dropped too (feature.ts).
 */
export function createSites(deps: Deps): Sites & { refresh(): void; forget(domain: string): void } {
  let byDomain = new Map<string, Site>();
  const refresh = () => {
    byDomain = new Map(readSites(deps.store.read, deps.config.current().services).map((s) => [s.domain, s]));
  };
  refresh();
  deps.config.onChange(refresh);
  return {
    find: (domain) => byDomain.get(domain) ?? null,
    list: () => [...byDomain.values()],
    refresh,
    forget: (domain) => {
      byDomain = new Map(byDomain);
      byDomain.delete(domain);
    },
  };
}
