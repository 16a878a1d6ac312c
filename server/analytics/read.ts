import type { DatabaseSync } from 'node:sqlite';
import type {
  AnalyticsList,
  AnalyticsListRead,
  AnalyticsRead,
  SharedAddress,
} from '../../protocol/analytics.ts';
import { notFound } from '../problem.ts';
import { readErrorGroups } from './error-reads.ts';
import { readDimensions, readList } from './lists.ts';
import { spanPieces } from './pieces.ts';
import { previousSpan, readSpan } from './ranges.ts';
import { errorGroupsKeptFrom } from './retention.ts';
import { noTotals, readTotals, readTraffic } from './traffic.ts';
import type { KnownSite, Sites } from './types.ts';
import { readVitals } from './vitals-read.ts';

type Site = KnownSite;

/**
 * The site a read asks for: `site` (a domain) when given, a 404 when mon does not know it; else the
 * first known site, or null when there is none (the read answers empty: the panel offers to add one).
 */
export function siteOf(sites: Sites, domain: string | undefined): Site | null {
  if (domain === undefined) return sites.list()[0] ?? null;
  const site = sites.find(domain.toLowerCase());
  if (!site) throw notFound(`no site ${domain}`);
  return site;
}

/**
 * `GET /api/v1/analytics`: traffic with the previous period, the top of each list, Web Vitals, error
 * groups and shared addresses of `site` over [from, to), from the rollups: the series and totals by
 * hour or day (ranges.ts), the rest from the same hours, or the days with blocks of days (pieces.ts).
 */
export function readAnalytics(
  db: DatabaseSync,
  input: {
    site: Site | null;
    sites: Sites;
    range: { from: number; to: number };
    now: number;
    sharedAddress: SharedAddress;
  },
): AnalyticsRead {
  const { site, range, now } = input;
  const domain = site?.domain ?? null;
  const span = readSpan(range.from, range.to, now);
  const pieces = spanPieces(db, domain, span);
  const previous = previousSpan(span, now);
  const { totals, series } = readTraffic(db, domain, span);
  const dimensions = readDimensions(db, domain, pieces);
  const topPages = dimensions.pages.rows.map((row) => row.value);
  const vitals = readVitals(db, domain, span, pieces, topPages, now);
  // Groups not seen for 35 days are gone with their counts: a range reaching further back would miss them.
  const errors = span.from >= errorGroupsKeptFrom(now) ? readErrorGroups(db, site, span, pieces) : null;
  const omitted = [
    ...(previous ? [] : ['previous']),
    ...(vitals.pages === null ? ['vitals.pages'] : []),
    ...(errors === null ? ['errors'] : []),
  ];
  return {
    site: domain,
    service: site?.service ?? null,
    fromFile: site?.fromFile ?? false,
    sites: input.sites.list().map((s) => s.domain),
    from: span.from,
    to: span.to,
    totals,
    previous: previous ? readTotals(db, domain, previous) : noTotals(),
    series,
    dimensions,
    vitals,
    errors,
    sharedAddress: input.sharedAddress,
    omitted,
  };
}

/** `GET /api/v1/analytics/{list}`. */
export function readAnalyticsList(
  db: DatabaseSync,
  input: {
    site: Site | null;
    list: AnalyticsList;
    range: { from: number; to: number };
    now: number;
    search: string | undefined;
    limit: number;
  },
): AnalyticsListRead {
  const domain = input.site?.domain ?? null;
  const span = readSpan(input.range.from, input.range.to, input.now);
  const rows = readList(db, domain, spanPieces(db, domain, span), input.list, {
    ...(input.search === undefined ? {} : { search: input.search }),
    limit: input.limit,
  });
  return { list: input.list, site: domain, ...rows };
}
