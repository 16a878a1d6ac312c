import { z } from 'zod';
import type { AnalyticsList, VitalName } from './analytics-constants.ts';
import { type CheckBody, checkBodySchema, isHostname, nameSchema } from './check.ts';

/**
 * Web analytics and JavaScript errors (docs/analytics.md): the tracker's events (`POST /e`), the
 * reads of `GET /api/v1/analytics` and `/analytics/{list}`, and `POST /api/v1/sites`.
 */

export {
  type AnalyticsList,
  analyticsLists,
  DIRECT_REFERRER,
  listValuesKept,
  OTHER_VALUE,
  type VitalName,
  vitalNames,
  vitalThresholds,
} from './analytics-constants.ts';

/** Body of `POST /e`, at most 8 KiB. */
export const MAX_TRACKER_BODY_BYTES = 8 * 1024;

const text = (max: number) => z.string().max(max);
const url = text(2048);

const vitalsSchema = z.strictObject({
  lcp: z.number().min(0).max(600_000).optional(),
  inp: z.number().min(0).max(600_000).optional(),
  cls: z.number().min(0).max(100).optional(),
  fcp: z.number().min(0).max(600_000).optional(),
  ttfb: z.number().min(0).max(600_000).optional(),
});

/**
 * One tracker event, sent by `/b.js` as JSON in a `text/plain` body (no CORS preflight). Short keys
 * keep the script small:
 * - `k`: `v` a page view, `e` the page was hidden (engaged time since the last `e`, and the page's
 *   Web Vitals as they stand), `x` a JavaScript error;
 * - `d`: the site's domain (the snippet's `data-domain`, else `location.hostname`); `u`: the page URL
 *   (the script sends it without fragment, and of the query only `utm_` parameters);
 * - `r`: the referrer (views only; the script sends its origin); `h`: 1 when the browser says it is
 *   automated (`navigator.webdriver`);
 * - `t`: engaged milliseconds (`e`); `w`: Web Vitals (`e`);
 * - `n`, `m`, `s`, `l`, `c`, `st`: the error's type, message, script URL, line, column and stack (`x`).
 */
export const trackerEventSchema = z.discriminatedUnion('k', [
  z.strictObject({
    k: z.literal('v'),
    d: text(253),
    u: url,
    r: url.optional(),
    h: z.literal(1).optional(),
  }),
  z.strictObject({
    k: z.literal('e'),
    d: text(253),
    u: url,
    t: z.number().int().min(0).max(86_400_000),
    w: vitalsSchema.optional(),
    h: z.literal(1).optional(),
  }),
  z.strictObject({
    k: z.literal('x'),
    d: text(253),
    u: url,
    n: text(200).optional(),
    m: text(2000),
    s: url.optional(),
    l: z.number().int().min(0).optional(),
    c: z.number().int().min(0).optional(),
    st: text(4000).optional(),
    h: z.literal(1).optional(),
  }),
]);
export type TrackerEvent = z.infer<typeof trackerEventSchema>;

/**
 * A site's host name, as mon.toml's `[[service]] sites` and `POST /api/v1/sites` take it: lowercase,
 * like `example.com`, without scheme, port, path or final dot. It takes the events of that host and of
 * `www.` before it, unless that is a site of its own (server/analytics/ingest.ts `knownSite`).
 */
export const siteDomainSchema = z
  .string()
  .trim()
  .toLowerCase()
  .refine(
    (v) => isHostname(v) && !v.endsWith('.'),
    'must be a host name such as example.com (no scheme, port or path)',
  );

/** Body of `POST /api/v1/sites` (SiteBody). */
export const siteBodySchema = z.strictObject({
  domain: siteDomainSchema,
  service: nameSchema.nullable().optional(),
  check: checkBodySchema.nullable().optional(),
});

/** `POST /api/v1/sites`. */
export type SiteBody = {
  /** The site's host name, like `example.com` (no scheme, port or path). */
  domain: string;
  /** The service the site belongs to; created when missing. Absent or null: the domain with dots as dashes. */
  service?: string | null;
  /** A check to add to the service with the site, as `POST /checks` takes it. */
  check?: CheckBody | null;
};

/** 201 of `POST /api/v1/sites`. */
export type SiteCreated = {
  domain: string;
  service: string;
  /** The id of the check added, or null. */
  check: string | null;
  /** The `<script>` tag to put in the site's pages. */
  snippet: string;
};

/** One row of a top list. */
export type AnalyticsRow = { value: string; visitors: number; views: number };

/** A top list: its first rows and how many values match in all. */
export type AnalyticsRows = {
  rows: AnalyticsRow[];
  total: number;
  /**
   * False when some periods of the range kept only their first 1,000 values of the list and their
   * days hold more rows than a read sums (docs/analytics.md "How fast"): the rows' counts may
   * then be short of the values' counts left out, and `total` counts the values read, which is at
   * least as many as are shown but may be fewer than match. False too when an hour or a day of the
   * range had more values than it keeps (listValuesKept): those beyond are the row OTHER_VALUE.
   */
  exact: boolean;
};

/** Visitors, page views, visits (sessions), bounce percent and mean time of a visit in ms. */
export type AnalyticsTotals = {
  visitors: number;
  views: number;
  visits: number;
  /** Percent of visits that did not engage (one page view, under 10 s engaged); null without visits. */
  bounce: number | null;
  /** Mean engaged time of a visit, ms; null without visits. */
  time: number | null;
};

export type AnalyticsSeries = {
  /** Bucket starts, ms. */
  x: number[];
  stepMs: number;
  visitors: number[];
  views: number[];
  bounce: (number | null)[];
  time: (number | null)[];
};

export type VitalRating = 'good' | 'needs-improvement' | 'poor';
export type VitalRead = { p75: number; rating: VitalRating; samples: number };
export type VitalsRead = Record<VitalName, VitalRead | null>;

export type ErrorGroupRead = {
  id: string;
  type: string;
  message: string;
  script: string | null;
  line: number | null;
  column: number | null;
  /** Occurrences within the read's range. */
  count: number;
  firstSeen: number;
  lastSeen: number;
  /** First seen within the read's range. */
  isNew: boolean;
  /** The deploy of the site's service within the hour before the group was first seen, if any. */
  deploy: { id: string; version: string; ts: number } | null;
};

/**
 * Visitors who share an address (docs/analytics.md), over the last 24 hours: mon counts visitors by
 * address and user agent, so these make its counts low.
 */
export type SharedAddress = {
  /** A peer not in `trusted_proxies` that forwards events with X-Forwarded-For: its share of the site's events. */
  forwarded: { address: string; sharePercent: number } | null;
  /**
   * One client address many visitors (different user agents) share: a proxy, NAT or office. `address`
   * is its network (`203.0.113.0/24`, an IPv6 /48), never the address itself.
   */
  proxy: { address: string; visitors: number; sharePercent: number } | null;
};

/** `GET /api/v1/analytics`. */
export type AnalyticsRead = {
  /** The site read, or null when mon knows no site. */
  site: string | null;
  /** Every known site, sorted, for the panel's switcher. */
  sites: string[];
  /** The service the site belongs to (its deploys are the ones error groups name), or null without a site. */
  service: string | null;
  /**
   * Whether mon.toml names the site (a `[[service]]`'s `sites`): it is removed by taking it out of the
   * file, not with `DELETE /api/v1/sites/{domain}`. False without a site.
   */
  fromFile: boolean;
  from: number;
  to: number;
  totals: AnalyticsTotals;
  /** The same totals over as many buckets as the span, at the same resolution, just before `from`. */
  previous: AnalyticsTotals;
  series: AnalyticsSeries;
  /** Ten rows per list and how many values each list has. */
  dimensions: Record<AnalyticsList, AnalyticsRows>;
  /**
   * p75 of the range over every page, and per page for the ten most viewed; `pages` is null when left
   * out. Single pages' are kept by the UTC day: `pagesFrom` is where theirs begin (00:00 UTC of the
   * range's first day, earlier than `from` unless the range starts at midnight); null with `pages`.
   */
  vitals: {
    overall: VitalsRead;
    pages: { page: string; vitals: VitalsRead }[] | null;
    pagesFrom: number | null;
  };
  /**
   * Error groups seen in the range, most occurrences first (at most 50); null when left out (a group is
   * kept until not seen for 35 days, so a range reaching further back would miss some).
   */
  errors: ErrorGroupRead[] | null;
  sharedAddress: SharedAddress;
  /**
   * Metrics left out because the range reaches back beyond what their data covers (raw data is kept
   * for a bounded time; daily rollups beyond), e.g. `vitals.pages`.
   */
  omitted: string[];
};

/** `GET /api/v1/analytics/{list}`. */
export type AnalyticsListRead = AnalyticsRows & { list: AnalyticsList; site: string | null };

/** The visitors of a service's site around an incident (`IncidentRead.visitors`). */
export type IncidentVisitors = {
  site: string;
  x: number[];
  stepMs: number;
  /** Per point, the visitors first seen that UTC day in its bucket (arrivals). */
  visitors: number[];
  /**
   * Distinct visitors with a visit overlapping the incident's span (start to resolution or now); past
   * the raw visits' retention, the sum of the points the span overlaps.
   */
  during: number;
};
