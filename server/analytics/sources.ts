/**
 * Where a page view comes from, read from the URLs the tracker sends: the page's path, the referrer's
 * host and the UTM parameters of the page's address.
 */

/** Characters of a page path kept at most. */
export const MAX_PAGE_LENGTH = 500;
/** Characters of a UTM value kept at most. */
export const MAX_UTM_LENGTH = 100;

export type Utm = { source: string | null; medium: string | null; campaign: string | null };

/** A URL the browser sent, or null when it is not an absolute URL. */
export function parseUrl(text: string | undefined): URL | null {
  if (!text) return null;
  try {
    return new URL(text);
  } catch {
    return null;
  }
}

/** The page: the URL's path without query or fragment, percent-decoded where it decodes. */
export function pagePath(url: URL): string {
  let path = url.pathname || '/';
  try {
    path = decodeURI(path);
  } catch {
    // A malformed escape stays as sent.
  }
  return path.slice(0, MAX_PAGE_LENGTH);
}

/** A host name lowercased, without a leading `www.`. */
export function bareHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.startsWith('www.') ? lower.slice(4) : lower;
}

/**
 * The referrer's host, or null for a direct visit: no referrer, one that is not a web address, or
 * one of the site itself (a link between its own pages).
 */
export function referrerHost(referrer: string | undefined, site: string, page: URL): string | null {
  const url = parseUrl(referrer);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) return null;
  const host = bareHost(url.hostname);
  if (host === bareHost(site) || host === bareHost(page.hostname)) return null;
  return host;
}

function utmValue(params: URLSearchParams, name: string): string | null {
  const value = params.get(name)?.trim().toLowerCase().slice(0, MAX_UTM_LENGTH);
  return value ? value : null;
}

/** `utm_source`, `utm_medium` and `utm_campaign` of the page's address. */
export function utmOf(page: URL): Utm {
  const params = page.searchParams;
  return {
    source: utmValue(params, 'utm_source'),
    medium: utmValue(params, 'utm_medium'),
    campaign: utmValue(params, 'utm_campaign'),
  };
}
