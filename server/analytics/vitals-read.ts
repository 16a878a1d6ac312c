import type { DatabaseSync } from 'node:sqlite';
import {
  type AnalyticsRead,
  type VitalName,
  type VitalRead,
  type VitalsRead,
  vitalNames,
} from '../../protocol/analytics.ts';
import { all, int, mapper, oneOf, text } from '../store/rows.ts';
import { dayPieces, type Piece } from './blocks.ts';
import { piecesParam } from './pieces.ts';
import type { ReadSpan } from './ranges.ts';
import { pageVitalsKeptFrom } from './retention.ts';
import { dayOf } from './rollups.ts';
import { p75 } from './vitals.ts';

/** The page of the histograms over every page. */
const EVERY_PAGE = '';

const histogramRow = mapper({ page: text, metric: oneOf(vitalNames), bucket: int, n: int });

/**
 * The histograms of `pages` merged over the pieces of a read (pieces.ts): one lookup per piece and
 * page through the primary key, so other pages' rows are never read.
 */
const histogramsSql = `
SELECT v.page, v.metric, v.bucket, sum(v.n) AS n FROM json_each(?) AS p CROSS JOIN analytics_vitals AS v
  ON v.site = ? AND v.res = p.value ->> 0 AND v.at = p.value ->> 1
WHERE v.page IN (SELECT value FROM json_each(?))
GROUP BY v.page, v.metric, v.bucket HAVING sum(v.n) > 0`;

/** p75 in the metric's unit (whole ms, or CLS to three decimals) with its bucket's rating. */
function vitalOf(metric: VitalName, histogram: Map<number, number>): VitalRead | null {
  const p = p75(metric, histogram);
  if (p === null) return null;
  const shown = metric === 'cls' ? Math.round(p.value * 1000) / 1000 : Math.round(p.value);
  let samples = 0;
  for (const n of histogram.values()) samples += n;
  return { p75: shown, rating: p.rating, samples };
}

function readHistograms(
  db: DatabaseSync,
  site: string,
  pieces: Piece[],
  pages: string[],
): Map<string, VitalsRead> {
  // Keyed by page and metric.
  const histograms = new Map<string, Map<number, number>>();
  const rows = all(db, histogramsSql, histogramRow, piecesParam(pieces), site, JSON.stringify(pages));
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
 * Web Vitals at p75 over the span: over every page (from the read's pieces), and for each of `pages`
 * (the most viewed, in their order) over the days the span touches, from `pagesFrom`. Single pages'
 * are kept for RAW_RETENTION_MS, by the day: a span reaching back beyond has `pages` null (the read
 * names it in `omitted`), and a shorter one reads 36 days at most.
 */
export function readVitals(
  db: DatabaseSync,
  site: string | null,
  span: ReadSpan,
  pieces: Piece[],
  pages: string[],
  now: number,
): AnalyticsRead['vitals'] {
  if (span.from < pageVitalsKeptFrom(now)) {
    const overall =
      site === null ? noVitals() : readHistograms(db, site, pieces, [EVERY_PAGE]).get(EVERY_PAGE)!;
    return { overall, pages: null, pagesFrom: null };
  }
  const pagesFrom = dayOf(span.from);
  if (site === null || span.buckets.length === 0) return { overall: noVitals(), pages: [], pagesFrom };
  const overall = readHistograms(db, site, pieces, [EVERY_PAGE]).get(EVERY_PAGE)!;
  // Single pages' Web Vitals are kept by the day only (retention.ts): the days the span touches.
  const byPage = readHistograms(db, site, dayPieces(pagesFrom, span.to, null), pages);
  return { overall, pages: pages.map((page) => ({ page, vitals: byPage.get(page)! })), pagesFrom };
}
