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
