import type { DatabaseSync } from 'node:sqlite';
import type { ConfigService } from '../config/service.ts';
import { deleting, type PrunePart } from '../store/pruning.ts';
import { all, exists, int, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { RAW_RETENTION_MS } from './retention.ts';
import { siteBeingRemoved, siteDataParts, whileStill } from './site-removal.ts';
import { sitesIn } from './site-rows.ts';
import { readSites } from './sites.ts';

/**
 * Sites mon.toml stopped naming, nor added through the API (docs/analytics.md "Removing a site"):
 * their data goes RAW_RETENTION_MS after mon first saw them unlisted, a time kept in `sites_unlisted`
 * across restarts and cleared once the site is named again. The clock starts only while the
 * configuration in force is the file's: a start on the last good copy of a rejected file, or on an
 * empty one, names fewer sites than the file does, and must not make quiet sites look due.
 */

const clockRow = mapper({ domain: text, since: int });

/** Whether mon knows `site` now: a site of the API or of the configuration in force. */
function known(db: DatabaseSync, config: ConfigService, site: string): boolean {
  return (
    config.current().services.some((s) => s.sites.includes(site)) ||
    exists(db, 'SELECT 1 FROM sites WHERE domain = ?', site)
  );
}

/**
 * Clears the clock of each site named again, then, while the file's configuration is in force, starts
 * one at `now` for each site with data that mon does not know (nor is deleting as removed). Returns
 * the clocks of the sites unlisted, empty while the configuration in force is not the file's.
 */
export function noteUnlisted(db: DatabaseSync, config: ConfigService, now: number): Map<string, number> {
  const names = new Set(readSites(db, config.current().services).map((s) => s.domain));
  const clocks = new Map<string, number>();
  const clear = statement(db, 'DELETE FROM sites_unlisted WHERE domain = ?');
  for (const { domain, since } of all(db, 'SELECT domain, since FROM sites_unlisted', clockRow)) {
    if (names.has(domain)) clear.run(domain);
    else clocks.set(domain, since);
  }
  if (config.inForce() !== 'file') return new Map();
  const tables = ['analytics_totals', 'analytics_dims', 'analytics_vitals', 'js_error_groups'] as const;
  const start = statement(db, 'INSERT INTO sites_unlisted (domain, since) VALUES (?, ?)');
  for (const site of new Set(tables.flatMap((table) => sitesIn(db, table)))) {
    if (names.has(site) || clocks.has(site) || siteBeingRemoved(db, site)) continue;
    start.run(site, now);
    clocks.set(site, now);
  }
  return clocks;
}

/**
 * The parts that delete all the data of each site unlisted for RAW_RETENTION_MS at `now` (its days
 * and blocks of days, which a known site keeps for good), then its clock. Each job asks again whether
 * the site is still unlisted that long, under the file's configuration: named again mid-pass (mon.toml
 * reloaded, or added through the API), it keeps what is left.
 */
export function unlistedSiteParts(db: DatabaseSync, config: ConfigService, now: number): PrunePart[] {
  const due = now - RAW_RETENTION_MS;
  const parts: PrunePart[] = [];
  for (const [site, since] of noteUnlisted(db, config, now)) {
    if (since > due) continue;
    const still = (db: DatabaseSync) =>
      config.inForce() === 'file' &&
      !known(db, config, site) &&
      !siteBeingRemoved(db, site) &&
      exists(db, 'SELECT 1 FROM sites_unlisted WHERE domain = ? AND since <= ?', site, due);
    parts.push(
      ...whileStill(still, [
        ...siteDataParts(site),
        deleting('DELETE FROM sites_unlisted WHERE domain = ? AND ? > 0', site),
      ]),
    );
  }
  return parts;
}
