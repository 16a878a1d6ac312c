import type { VitalName } from '../../protocol/analytics.ts';

/**
 * A tracker event as `POST /e` hands it to storage: checked, its site known, its visitor hashed, its
 * user agent, country and source read (docs/analytics.md). No address or user agent is kept.
 */
export type TrackerItem = {
  /** The site's domain, as mon knows it. */
  site: string;
  ts: number;
  /** Keyed hash (hex) of site, address and user agent with the day's salt. */
  visitor: string;
  /**
   * For an engagement, which may belong to a visit begun before midnight UTC and still going: the
   * visitor's id of the day before, if that day's salt is kept.
   */
  dayBeforeVisitor?: string;
  /** The page's path, without query or fragment, like `/pricing`. */
  page: string;
  /** `desktop`, `mobile` or `tablet`. */
  device: string;
  browser: string;
  os: string;
  /** ISO 3166-1 alpha-2 code, or null when unknown. */
  country: string | null;
  event:
    | {
        kind: 'view';
        /** The referrer's host when it is another site, like `news.ycombinator.com`; null for direct visits. */
        referrer: string | null;
        utm: { source: string | null; medium: string | null; campaign: string | null };
      }
    | { kind: 'engage'; engagedMs: number; vitals: Partial<Record<VitalName, number>> }
    | {
        kind: 'error';
        type: string;
        message: string;
        script: string | null;
        line: number | null;
        column: number | null;
        stack: string | null;
      };
};

/** A known site: its domain, its service, and whether mon.toml names it (else the API added it). */
export type KnownSite = { domain: string; service: string; fromFile: boolean };

/** Which known site a domain is, and which service it belongs to (sites.ts). */
export type Sites = {
  /** The known site for this domain (exact, lowercase), or null. */
  find(domain: string): KnownSite | null;
  /** Every known site, sorted by domain. */
  list(): KnownSite[];
};
