import type { TrackerEvent } from '../protocol/analytics.ts';

/**
 * Simulated visitors of one site for the analytics benchmark: each has its own public address and the
 * user agent of a real browser, lands on a page (from a search engine, a social site, a campaign or
 * directly), moves through a few pages of a single-page app, hides the page (engaged time and Web
 * Vitals) and sometimes hits a JavaScript error, then leaves; a new visitor takes its place. Events
 * are what `/b.js` sends (protocol/analytics.ts `trackerEventSchema`). Deterministic: a seeded PRNG.
 */

/** Real browsers, with a weight roughly their share of traffic. */
const userAgents: [weight: number, ua: string][] = [
  [
    22,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ],
  [
    14,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
  ],
  [
    13,
    'Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  ],
  [
    9,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ],
  [
    7,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  ],
  [
    6,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  ],
  [4, 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0'],
  [
    3,
    'Mozilla/5.0 (Linux; Android 14; SAMSUNG SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36',
  ],
  [
    3,
    'Mozilla/5.0 (iPad; CPU OS 17_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.7 Mobile/15E148 Safari/604.1',
  ],
  [
    3,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1',
  ],
  [
    2,
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ],
  [2, 'Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0'],
  [2, 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:133.0) Gecko/20100101 Firefox/133.0'],
  [
    2,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0',
  ],
  [2, 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0'],
  [
    1,
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  ],
  [
    1,
    'Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  ],
  [
    1,
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 YaBrowser/24.12.0.0 Safari/537.36',
  ],
  [
    1,
    'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  ],
  [
    1,
    'Mozilla/5.0 (Linux; Android 12; M2101K6G) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36 OPR/86.0.0.0',
  ],
];

const searchEngines = ['https://www.google.com/', 'https://www.bing.com/', 'https://duckduckgo.com/'];
const otherReferrers = [
  'https://news.ycombinator.com/',
  'https://www.reddit.com/r/webdev/comments/1h2x3y/',
  'https://t.co/a1B2c3D4e5',
  'https://www.facebook.com/',
  'https://www.linkedin.com/feed/',
  'https://github.com/acme/shop',
  'https://stackoverflow.com/questions/78123456/',
  'https://lobste.rs/',
];
const campaigns = [
  'utm_source=newsletter&utm_medium=email&utm_campaign=winter-sale',
  'utm_source=twitter&utm_medium=social&utm_campaign=launch',
  'utm_source=google&utm_medium=cpc&utm_campaign=brand',
  'utm_source=partner&utm_medium=referral',
];

/** A few hundred paths: some top pages, a blog, products, docs. */
const paths = [
  '/',
  '/pricing',
  '/about',
  '/contact',
  '/login',
  '/signup',
  '/cart',
  '/checkout',
  ...Array.from({ length: 120 }, (_, i) => `/blog/post-${i + 1}-on-monitoring`),
  ...Array.from({ length: 150 }, (_, i) => `/products/${1000 + i * 7}`),
  ...Array.from({ length: 30 }, (_, i) => `/docs/guide/chapter-${i + 1}`),
];

/** Errors as browsers report them: a type, a message with varying parts, a script, a stack. */
const errors: { n: string; m: (i: number) => string; fn: string }[] = [
  { n: 'TypeError', m: () => "Cannot read properties of undefined (reading 'id')", fn: 'renderCart' },
  { n: 'TypeError', m: (i) => `Cannot read properties of null (reading 'item${i % 5}')`, fn: 'onClick' },
  { n: 'ReferenceError', m: () => 'gtag is not defined', fn: 'trackPurchase' },
  { n: 'Error', m: (i) => `Request failed with status ${[500, 502, 503][i % 3]}`, fn: 'fetchJson' },
  { n: 'Error', m: (i) => `Order ${100_000 + i} could not be loaded`, fn: 'loadOrder' },
  { n: 'SyntaxError', m: () => 'Unexpected token \'<\', "<!DOCTYPE "... is not valid JSON', fn: 'parse' },
  { n: 'TypeError', m: () => 'Failed to fetch', fn: 'refresh' },
  { n: 'RangeError', m: () => 'Maximum call stack size exceeded', fn: 'walkTree' },
];

const SITE_ORIGIN = (domain: string) => `https://${domain}`;
const SCRIPT = (domain: string) => `https://${domain}/assets/app.3f9a1c.js`;

/** The value at quantile `q` (0 to 1) of `sorted` (ascending); null when empty. For the analytics benchmarks. */
export function quantile(sorted: ArrayLike<number>, q: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Mulberry32: small, fast, good enough for picking; deterministic, so runs compare. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function weighted<T>(items: [number, T][], random: () => number): () => T {
  const total = items.reduce((sum, [w]) => sum + w, 0);
  return () => {
    let r = random() * total;
    for (const [w, item] of items) {
      r -= w;
      if (r < 0) return item;
    }
    return items[items.length - 1]![1];
  };
}

/** A public IPv4 address (no private, loopback, link-local, shared, multicast or reserved range). */
function publicAddress(random: () => number): string {
  for (;;) {
    const a = 1 + Math.floor(random() * 222);
    const b = Math.floor(random() * 256);
    if (a === 10 || a === 127 || (a === 100 && b >= 64 && b < 128) || (a === 169 && b === 254)) continue;
    if ((a === 172 && b >= 16 && b < 32) || (a === 192 && b === 168) || (a === 198 && b >= 18 && b < 20))
      continue;
    return `${a}.${b}.${Math.floor(random() * 256)}.${1 + Math.floor(random() * 254)}`;
  }
}

export type Visitor = {
  address: string;
  userAgent: string;
  /** Events sent so far. */
  sent: number;
  /** Events this visit will send before the visitor leaves. */
  length: number;
  page: string;
  /** Whether this visit's Web Vitals were sent (with the first `e`). */
  vitalsSent: boolean;
};

export type VisitorEvent = { visitor: Visitor; body: string; kind: TrackerEvent['k'] };

/**
 * The visitors of `domain`: `next()` picks the next of `active` visitors in turn and returns its next
 * event; a visitor who has sent its visit's events is replaced by a new one.
 */
export function createVisitors(domain: string, active: number, seed = 1) {
  const random = prng(seed);
  const userAgent = weighted(userAgents, random);
  // Popularity falls with rank (a Zipf-like curve): the home page and a few others take most views.
  const page = () => paths[Math.min(paths.length - 1, Math.floor(paths.length * random() ** 3))]!;
  const origin = SITE_ORIGIN(domain);
  let serial = 0;

  const newVisitor = (): Visitor => ({
    address: publicAddress(random),
    userAgent: userAgent(),
    sent: 0,
    // 3 to 12 events: a landing, a few more pages, hides of the page, perhaps an error.
    length: 3 + Math.floor(random() * 10),
    page: page(),
    vitalsSent: false,
  });
  const pool = Array.from({ length: active }, newVisitor);
  let turn = 0;

  const landing = (v: Visitor): TrackerEvent => {
    const r = random();
    if (r < 0.12) {
      const query = campaigns[Math.floor(random() * campaigns.length)]!;
      return { k: 'v', d: domain, u: `${origin}${v.page}?${query}` };
    }
    if (r < 0.45)
      return { k: 'v', d: domain, u: `${origin}${v.page}`, r: searchEngines[Math.floor(random() * 3)]! };
    if (r < 0.6) {
      const referrer = otherReferrers[Math.floor(random() * otherReferrers.length)]!;
      return { k: 'v', d: domain, u: `${origin}${v.page}`, r: referrer };
    }
    return { k: 'v', d: domain, u: `${origin}${v.page}` };
  };

  const later = (v: Visitor): TrackerEvent => {
    const r = random();
    if (r < 0.04) {
      const e = errors[Math.floor(random() * errors.length)]!;
      const message = e.m(serial++);
      const line = 1;
      const column = 1000 + Math.floor(random() * 40) * 97;
      return {
        k: 'x',
        d: domain,
        u: `${origin}${v.page}`,
        n: e.n,
        m: message,
        s: SCRIPT(domain),
        l: line,
        c: column,
        st: `${e.n}: ${message}\n    at ${e.fn} (${SCRIPT(domain)}:${line}:${column})\n    at HTMLButtonElement.<anonymous> (${SCRIPT(domain)}:1:2231)`,
      };
    }
    if (r < 0.34) {
      const engaged = 1000 + Math.floor(random() * 90_000);
      if (v.vitalsSent) return { k: 'e', d: domain, u: `${origin}${v.page}`, t: engaged };
      v.vitalsSent = true;
      const slow = random() < 0.2 ? 2.5 : 1;
      return {
        k: 'e',
        d: domain,
        u: `${origin}${v.page}`,
        t: engaged,
        w: {
          lcp: Math.round((800 + random() * 2500) * slow),
          fcp: Math.round((400 + random() * 1500) * slow),
          ttfb: Math.round((60 + random() * 600) * slow),
          cls: Math.round(random() * random() * 300) / 1000,
          inp: Math.round((40 + random() * 250) * slow),
        },
      };
    }
    // A navigation inside the single-page app.
    v.page = page();
    return { k: 'v', d: domain, u: `${origin}${v.page}` };
  };

  return {
    next(): VisitorEvent {
      turn = (turn + 1) % pool.length;
      let visitor = pool[turn]!;
      if (visitor.sent >= visitor.length) {
        visitor = newVisitor();
        pool[turn] = visitor;
      }
      const event = visitor.sent === 0 ? landing(visitor) : later(visitor);
      visitor.sent++;
      return { visitor, body: JSON.stringify(event), kind: event.k };
    },
  };
}
