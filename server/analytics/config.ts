import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { text } from '../config/fields.ts';
import { type Built, configSection, type TomlTable } from '../config/section.ts';

/**
 * The `[analytics]` table of mon.toml (docs/configuration.md):
 *
 *   [analytics]
 *   country_database = "/var/lib/mon/GeoLite2-Country.mmdb"
 *
 * Without it, countries come from the database mon ships (server/analytics/countries.ts).
 */

export type AnalyticsSettings = {
  /** Absolute path of a MaxMind-format country database (`.mmdb`), or null for the bundled one. */
  countryDatabase: string | null;
};

const analyticsSchema = z.strictObject({
  country_database: text(4096).refine(isAbsolute, 'must be an absolute path').optional(),
});

export const analyticsSection = configSection({
  key: 'analytics',
  tables: { analytics: analyticsSchema.optional() },
  build: (input): Built<AnalyticsSettings> => ({
    value: { countryDatabase: input.analytics?.country_database ?? null },
    errors: [],
  }),
  empty: (): AnalyticsSettings => ({ countryDatabase: null }),
  toToml: (value): TomlTable =>
    value.countryDatabase === null ? {} : { analytics: { country_database: value.countryDatabase } },
});
