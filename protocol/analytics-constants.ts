/**
 * The analytics lists and Web Vitals with their thresholds (protocol/analytics.ts has the tracker's
 * schema and the read shapes, and re-exports these). Apart because the panel loads them at run time,
 * and nothing here needs the schema library: the panel takes only types from analytics.ts.
 */

/** The lists of `GET /analytics/{list}`, in the order the overview shows them. */
export const analyticsLists = [
  'pages',
  'referrers',
  'countries',
  'devices',
  'browsers',
  'operatingSystems',
  'utmSources',
  'utmMediums',
  'utmCampaigns',
] as const;
export type AnalyticsList = (typeof analyticsLists)[number];

/** The `referrers` value of visits that came without a referrer (typed, bookmarked, from an app). */
export const DIRECT_REFERRER = '(direct)';

/**
 * The value of a list that counts, for an hour or a UTC day, the values beyond the most it keeps
 * (1,000 an hour; docs/analytics.md "How fast"), so that the list's views still add up.
 */
export const OTHER_VALUE = '(other)';

/**
 * The most values of a list an hour (`h`) and a UTC day (`d`) keep, for pages and for each other list
 * (server/analytics/value-caps.ts); values beyond count in the OTHER_VALUE row.
 */
export const listValuesKept = {
  h: { pages: 1_000, others: 250 },
  d: { pages: 5_000, others: 1_250 },
} as const;

/** The Web Vitals the tracker measures. */
export const vitalNames = ['lcp', 'inp', 'cls', 'fcp', 'ttfb'] as const;
export type VitalName = (typeof vitalNames)[number];

/**
 * web.dev's thresholds: at or below `good` is good, above `poor` is poor, between needs improvement.
 * Milliseconds, except CLS (unitless).
 */
export const vitalThresholds: Record<VitalName, { good: number; poor: number }> = {
  lcp: { good: 2500, poor: 4000 },
  inp: { good: 200, poor: 500 },
  cls: { good: 0.1, poor: 0.25 },
  fcp: { good: 1800, poor: 3000 },
  ttfb: { good: 800, poor: 1800 },
};

/**
 * The service a site is added to when none is named: its domain with dots as dashes
 * (`shop.example.com` → `shop-example-com`). The server names it; the panel shows it beforehand.
 */
export function defaultServiceName(domain: string): string {
  return domain.trim().toLowerCase().replaceAll('.', '-');
}
