/** Ranges of the overview (`?range=` of `GET /overview`): strips, uptime, latency, deploys and changes. */
export const overviewRanges = ['1h', '24h', '7d', '30d'] as const;
export type OverviewRange = (typeof overviewRanges)[number];

/**
 * Query keys of the overview: the read per range (stream key `overview`, also reloaded by `incidents`
 * and `service:<name>`), and the warnings, which change with mon.toml, the panel's channels and the requests mon gets.
 */
export const overviewKeys = {
  all: ['overview'] as const,
  read: (range: OverviewRange) => ['overview', range] as const,
  warnings: ['warnings'] as const,
};
