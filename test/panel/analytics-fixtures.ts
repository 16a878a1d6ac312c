import type { Page, Route } from 'playwright-core';
import {
  type AnalyticsList,
  type AnalyticsListRead,
  type AnalyticsRead,
  type AnalyticsRow,
  type AnalyticsRows,
  type AnalyticsTotals,
  analyticsLists,
  type IncidentVisitors,
  type SiteBody,
  type SiteCreated,
} from '../../protocol/analytics.ts';

/**
 * The analytics API as the panel's browser tests answer it: `GET /api/v1/analytics`,
 * `/analytics/{list}` and `POST /api/v1/sites`, served to one page by `page.route` with the protocol's
 * shapes and figures the tests know. Everything else reaches the real server.
 */

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/** The story: shop.example.com of service shop has had visitors all day; blog.example.com none. */
export const SHOP = 'shop.example.com';
export const BLOG = 'blog.example.com';
export const SNIPPET = (domain: string) =>
  `<script defer src="https://mon.example/b.js" data-domain="${domain}"></script>`;
/** An error message as a page could throw it: text, which the panel must never read as HTML. */
/** A page of Web Vitals whose path is longer than a phone's column for it. */
export const LONG_PAGE = '/blog/2026/how-we-made-the-checkout-twice-as-fast';
export const hostileMessage = '<img src=x onerror="document.title=1"> checkout failed';

const zero: AnalyticsTotals = { visitors: 0, views: 0, visits: 0, bounce: null, time: null };

/** Rows of `values` in their order: visitors from `first` down by 9, three views each. */
function rows(values: string[], first: number): AnalyticsRow[] {
  return values.map((value, i) => ({ value, visitors: first - i * 9, views: (first - i * 9) * 3 }));
}

/** 42 pages: `/`, `/pricing`, then 40 posts, most viewed first. */
export const pages = ['/', '/pricing', ...Array.from({ length: 40 }, (_, i) => `/blog/post-${i + 1}`)];

const lists: Record<AnalyticsList, string[]> = {
  pages,
  referrers: ['(direct)', 'news.ycombinator.com', 'www.google.com'],
  countries: ['DE', 'US', 'FR'],
  devices: ['desktop', 'mobile', 'tablet'],
  browsers: ['Chrome', 'Firefox', 'Safari'],
  operatingSystems: ['Windows', 'macOS', 'Android'],
  utmSources: ['newsletter'],
  utmMediums: [],
  utmCampaigns: ['spring-sale'],
};

/** Every row of a list, ranked as the read ranks them. */
function listRows(list: AnalyticsList): AnalyticsRow[] {
  return rows(lists[list], 400);
}

function dimensions(empty: boolean): Record<AnalyticsList, AnalyticsRows> {
  return Object.fromEntries(
    analyticsLists.map((list) => {
      const all = empty ? [] : listRows(list);
      return [list, { rows: all.slice(0, 10), total: all.length, exact: true }];
    }),
  ) as Record<AnalyticsList, AnalyticsRows>;
}

const spans: Record<string, number> = {
  '1h': HOUR,
  '24h': DAY,
  '7d': 7 * DAY,
  '30d': 30 * DAY,
  '1y': 365 * DAY,
};

/** The read of `site` over `range` at `now`: shop has the figures the tests check, blog has nothing. */
export function siteRead(sites: string[], site: string | null, range: string, now: number): AnalyticsRead {
  const shown = site ?? sites[0] ?? null;
  const span = spans[range] ?? DAY;
  const stepMs = span > 2 * DAY ? DAY : HOUR;
  const x = Array.from({ length: Math.ceil(span / stepMs) }, (_, i) => now - span + i * stepMs);
  const busy = shown === SHOP;
  // Per-page Web Vitals are kept for 35 days: the longest range leaves them out.
  // A year reaches back beyond what single pages' Web Vitals and error groups cover.
  const pagesOmitted = range === '1y';
  // Single pages' Web Vitals begin at midnight UTC of the range's first day.
  const pagesFrom = pagesOmitted ? null : Math.floor((now - span) / DAY) * DAY;
  return {
    site: shown,
    sites,
    service: shown === null ? null : shown === SHOP ? 'shop' : 'blog',
    fromFile: shown === SHOP,
    from: now - span,
    to: now,
    totals: busy ? { visitors: 1234, views: 4321, visits: 1500, bounce: 42.5, time: 95_000 } : zero,
    previous: busy ? { visitors: 1000, views: 4500, visits: 1500, bounce: 40, time: 80_000 } : zero,
    series: {
      x,
      stepMs,
      visitors: x.map((_, i) => (busy ? 30 + (i % 6) * 5 : 0)),
      views: x.map((_, i) => (busy ? 90 + (i % 6) * 12 : 0)),
      bounce: x.map(() => (busy ? 40 : null)),
      time: x.map(() => (busy ? 90_000 : null)),
    },
    dimensions: dimensions(!busy),
    vitals: busy
      ? {
          overall: {
            lcp: { p75: 2600, rating: 'needs-improvement', samples: 812 },
            inp: { p75: 180, rating: 'good', samples: 640 },
            cls: { p75: 0.31, rating: 'poor', samples: 812 },
            fcp: { p75: 1500, rating: 'good', samples: 812 },
            ttfb: null,
          },
          pages: pagesOmitted
            ? null
            : [
                {
                  page: '/',
                  vitals: {
                    lcp: { p75: 2100, rating: 'good', samples: 400 },
                    inp: { p75: 520, rating: 'poor', samples: 300 },
                    cls: { p75: 0.05, rating: 'good', samples: 400 },
                    fcp: { p75: 1200, rating: 'good', samples: 400 },
                    ttfb: null,
                  },
                },
                {
                  page: '/pricing',
                  vitals: {
                    lcp: { p75: 4200, rating: 'poor', samples: 120 },
                    inp: null,
                    cls: { p75: 0.12, rating: 'needs-improvement', samples: 120 },
                    fcp: { p75: 1900, rating: 'needs-improvement', samples: 120 },
                    ttfb: null,
                  },
                },
                {
                  // A long path, every figure measured and as wide as they come.
                  page: LONG_PAGE,
                  vitals: {
                    lcp: { p75: 3800, rating: 'needs-improvement', samples: 60 },
                    inp: { p75: 480, rating: 'needs-improvement', samples: 40 },
                    cls: { p75: 0.18, rating: 'needs-improvement', samples: 60 },
                    fcp: { p75: 2400, rating: 'needs-improvement', samples: 60 },
                    ttfb: { p75: 1900, rating: 'poor', samples: 60 },
                  },
                },
              ],
          pagesFrom,
        }
      : {
          overall: { lcp: null, inp: null, cls: null, fcp: null, ttfb: null },
          pages: pagesOmitted ? null : [],
          pagesFrom,
        },
    errors: pagesOmitted
      ? null
      : busy
        ? [
            {
              id: '00000000000000e1',
              type: 'TypeError',
              message: "Cannot read properties of undefined (reading 'price')",
              script: 'https://shop.example.com/assets/app.js',
              line: 120,
              column: 17,
              count: 57,
              firstSeen: now - 2 * HOUR,
              lastSeen: now - 5 * 60_000,
              isNew: true,
              deploy: { id: '17', version: 'v2.4.0', ts: now - 2 * HOUR - 20 * 60_000 },
            },
            {
              id: '00000000000000e2',
              type: 'Error',
              message: hostileMessage,
              script: null,
              line: null,
              column: null,
              count: 3,
              firstSeen: now - 3 * DAY,
              lastSeen: now - HOUR,
              isNew: false,
              deploy: null,
            },
          ]
        : [],
    sharedAddress: busy
      ? { forwarded: null, proxy: { address: '198.51.100.0/24', visitors: 37, sharePercent: 12 } }
      : { forwarded: null, proxy: null },
    omitted: pagesOmitted ? ['vitals.pages', 'errors'] : [],
  };
}

/** The visitors of shop around an incident from `start` to `end`: hourly, 83 during it. */
export function visitorsAround(start: number, end: number): IncidentVisitors {
  const first = Math.floor((start - HOUR) / HOUR) * HOUR;
  const x = Array.from({ length: Math.ceil((end + HOUR - first) / HOUR) }, (_, i) => first + i * HOUR);
  return { site: SHOP, x, stepMs: HOUR, visitors: x.map((_, i) => 40 + i * 3), during: 83 };
}

export type Served = {
  /** The URLs of the analytics reads the page asked for, in order. */
  reads: URL[];
  /** The URLs of the list reads. */
  lists: URL[];
  /** The bodies of `POST /sites`. */
  added: SiteBody[];
};

/**
 * Answers the page's analytics requests from these fixtures at `now`; `sites` are the sites known at
 * first, and grow with each `POST /sites` taken. A domain `taken.example` is refused as one mon knows
 * (409); a domain with a scheme as the server refuses it (422).
 */
export async function serveAnalytics(page: Page, now: number, sites: string[]): Promise<Served> {
  const known = [...sites];
  const served: Served = { reads: [], lists: [], added: [] };
  const json = (route: Route, status: number, body: unknown) =>
    route.fulfill({
      status,
      contentType: status >= 400 ? 'application/problem+json' : 'application/json',
      body: JSON.stringify(body),
    });
  await page.route(
    (url) => url.pathname.startsWith('/api/v1/analytics'),
    (route) => {
      const url = new URL(route.request().url());
      const range = url.searchParams.get('range') ?? '24h';
      const site = url.searchParams.get('site');
      const list = url.pathname.split('/')[4];
      if (list === undefined) {
        served.reads.push(url);
        return json(route, 200, siteRead(known, site, range, now));
      }
      served.lists.push(url);
      const search = (url.searchParams.get('search') ?? '').toLowerCase();
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const matching = listRows(list as AnalyticsList).filter((r) => r.value.toLowerCase().includes(search));
      const answer: AnalyticsListRead = {
        list: list as AnalyticsList,
        site,
        rows: matching.slice(0, limit),
        total: matching.length,
        exact: true,
      };
      return json(route, 200, answer);
    },
  );
  await page.route(
    (url) => url.pathname === '/api/v1/sites',
    (route) => {
      const body = route.request().postDataJSON() as SiteBody;
      served.added.push(body);
      if (body.domain === 'taken.example')
        return json(route, 409, { title: 'conflict', status: 409, detail: 'the site taken.example exists' });
      if (body.domain.includes('/'))
        return json(route, 422, {
          title: 'invalid',
          status: 422,
          detail: 'domain: must be a host name such as example.com (no scheme, port or path)',
        });
      known.push(body.domain);
      known.sort();
      const created: SiteCreated = {
        domain: body.domain,
        service: body.service ?? body.domain.replaceAll('.', '-'),
        check: body.check ? '00000000000000c1' : null,
        snippet: SNIPPET(body.domain),
      };
      return json(route, 201, created);
    },
  );
  return served;
}
