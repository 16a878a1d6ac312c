import type { DatabaseSync } from 'node:sqlite';
import { type VitalName, type VitalRead, type VitalsRead, vitalNames } from '../../protocol/analytics.ts';
import { all, int, mapper, oneOf, text } from '../store/rows.ts';
import type { ReadSpan } from './ranges.ts';
import { p75, vitalRating } from './vitals.ts';

/** The page of the histograms over every page. */
const EVERY_PAGE = '';

const histogramRow = mapper({ page: text, metric: oneOf(vitalNames), bucket: int, n: int });

/**
 * The histograms of `pages` merged over the span's buckets: one lookup per bucket and page through the
 * primary key (`at IN …`, `page IN …`), so other pages' rows are never read.
 */
const histogramsSql = `
SELECT page, metric, bucket, sum(n) AS n FROM analytics_vitals
WHERE site = ? AND res = ? AND at IN (SELECT value FROM json_each(?)) AND page IN (SELECT value FROM json_each(?))
GROUP BY page, metric, bucket HAVING sum(n) > 0`;

/** p75 in the metric's unit: whole ms, or CLS to three decimals; rated on the value shown. */
function vitalOf(metric: VitalName, histogram: Map<number, number>): VitalRead | null {
  const value = p75(metric, histogram);
  if (value === null) return null;
  const shown = metric === 'cls' ? Math.round(value * 1000) / 1000 : Math.round(value);
  let samples = 0;
  for (const n of histogram.values()) samples += n;
  return { p75: shown, rating: vitalRating(metric, shown), samples };
}

function readHistograms(
  db: DatabaseSync,
  site: string,
  span: ReadSpan,
  pages: string[],
): Map<string, VitalsRead> {
  // Keyed by page and metric.
  const histograms = new Map<string, Map<number, number>>();
  const rows = all(
    db,
    histogramsSql,
    histogramRow,
    site,
    span.res,
    JSON.stringify(span.buckets),
    JSON.stringify(pages),
  );
  for (const { page, metric, bucket, n } of rows) {
    const key = `${page}\0${metric}`;
    const histogram = histograms.get(key) ?? new Map<number, number>();
    histogram.set(bucket, n);
    histograms.set(key, histogram);
  }
  const read = new Map<string, VitalsRead>();
  for (const page of pages)
    read.set(
      page,
      vitalsOf((metric) => histograms.get(`${page}\0${metric}`)),
    );
  return read;
}

function vitalsOf(histogramOf: (metric: VitalName) => Map<number, number> | undefined): VitalsRead {
  const entries = vitalNames.map((metric) => {
    const histogram = histogramOf(metric);
    return [metric, histogram ? vitalOf(metric, histogram) : null] as const;
  });
  return Object.fromEntries(entries) as VitalsRead;
}

export const noVitals = (): VitalsRead => vitalsOf(() => undefined);

/**
 * Web Vitals at p75 over the span: over every page, and for each of `pages` (the most viewed, in
 * their order).
 */
export function readVitals(
  db: DatabaseSync,
  site: string | null,
  span: ReadSpan,
  pages: string[],
): { overall: VitalsRead; pages: { page: string; vitals: VitalsRead }[] } {
  if (site === null || span.buckets.length === 0) return { overall: noVitals(), pages: [] };
  const read = readHistograms(db, site, span, [EVERY_PAGE, ...pages]);
  return {
    overall: read.get(EVERY_PAGE)!,
    pages: pages.map((page) => ({ page, vitals: read.get(page)! })),
  };
}
