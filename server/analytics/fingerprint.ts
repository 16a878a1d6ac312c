import { createHash } from 'node:crypto';

/**
 * JavaScript errors are grouped by a fingerprint: the error's type, its message with the parts that
 * vary between occurrences replaced (numbers, hex, ids, URLs, quoted text), and its top frame: the
 * first stack frame of the site's own scripts (its host, `www.` or a subdomain), else the first with
 * any web address (a library from a CDN, a browser extension's page script). A frame is the file's
 * path without query, and the function; a script of another host keeps its host too, so that
 * `cdn.example/app.js` and the site's `/app.js` are apart. Line and column are left out: they move
 * with every build.
 */

export type ErrorParts = {
  /** The site's domain: its frames come first. */
  site: string;
  type: string;
  message: string;
  /** The script the error was thrown in, used when no stack frame has an address. */
  script: string | null;
  stack: string | null;
};

/** The placeholders of `normalizeMessage`, longest patterns first so that a URL is not seen as numbers. */
const replacements: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`)<>]+/gi, '<url>'],
  // A quote opens only outside a word: the apostrophe of "can't" or "Couldn’t" opens nothing.
  [/(?<![\p{L}\p{N}])(?:'[^']*'|"[^"]*"|`[^`]*`|‘[^’]*’|“[^”]*”)/gu, '<str>'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '<id>'],
  [/\b0x[0-9a-f]+\b/gi, '<hex>'],
  // Hex runs of 8 or more (hashes, object ids) and tokens mixing letters and digits (ids, keys).
  [/\b(?=[0-9a-f]*\d)[0-9a-f]{8,}\b/gi, '<hex>'],
  [/\b(?=[a-z_-]*\d)(?=\d*[a-z])[a-z0-9_-]{8,}\b/gi, '<id>'],
  [/\d+(?:\.\d+)?/g, '<n>'],
];

/** Longest message kept in a fingerprint, after normalising. */
const MAX_MESSAGE = 500;

/**
 * The message with what varies between occurrences replaced by placeholders, the browser's
 * `Uncaught ` and a repeated `Type: ` prefix removed, and white space collapsed.
 */
export function normalizeMessage(type: string, message: string): string {
  let m = message.trim().replace(/^Uncaught (?:\(in promise\) )?/, '');
  if (m.startsWith(`${type}: `)) m = m.slice(type.length + 2);
  for (const [pattern, placeholder] of replacements) m = m.replace(pattern, placeholder);
  return m.replace(/\s+/g, ' ').slice(0, MAX_MESSAGE);
}

/** A stack frame's function and address. */
export type Frame = { fn: string; url: string };

// Chrome and Edge: `    at fn (url:line:col)`, `    at url:line:col`, `    at async fn (url:line:col)`.
const chromeFrame = /^\s*at (?:(.+?) \()?(\S+?):\d+(?::\d+)?\)?$/;
// Firefox and Safari: `fn@url:line:col`, `@url:line:col`, Safari's `url:line:col` on its own.
const geckoFrame = /^\s*(?:(.*?)@)?(\S+?):\d+(?::\d+)?$/;

/**
 * The first frame of a stack whose address is on `site` (or its `www.` or a subdomain), else the
 * first whose address is a web address (http or https), or null. A library on top of the stack says
 * less about where the error is than the site's own code that called it.
 */
export function topFrame(stack: string, site: string): Frame | null {
  let firstWeb: Frame | null = null;
  for (const line of stack.split('\n')) {
    const match = chromeFrame.exec(line) ?? geckoFrame.exec(line);
    if (!match) continue;
    const url = match[2]!;
    if (!/^https?:\/\//i.test(url)) continue;
    const frame = { fn: functionName(match[1] ?? ''), url };
    if (isSiteAddress(url, site)) return frame;
    firstWeb ??= frame;
  }
  return firstWeb;
}

/** The host of a web address, lowercased, without port; null when it has none. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** Whether `url` is on `site`, `www.` of it or one of its subdomains (`www.` of the site left out). */
export function isSiteAddress(url: string, site: string): boolean {
  const host = hostOf(url);
  const domain = site.toLowerCase().replace(/^www\./, '');
  return host !== null && (host === domain || host.endsWith(`.${domain}`));
}

/** The function's name without what browsers add around it (`async `, `new `, ` [as x]`, `/<`). */
function functionName(raw: string): string {
  return raw
    .replace(/^(?:async |new )/, '')
    .replace(/ \[as [^\]]*\]$/, '')
    .replace(/\/<$|\/<\//g, '')
    .replace(/<$/, '')
    .trim();
}

/**
 * The path of an address without host, query or fragment, with content hashes in file names
 * (`index-4f3a2b1c.js`) replaced, so that a rebuilt bundle keeps its errors' groups.
 */
export function scriptPath(url: string): string {
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, '').replace(/[?#].*$/s, '');
  return path.replace(/(?<=[-_.])(?=[a-z0-9]*\d)[a-z0-9]{6,}(?=\.)/gi, '<hash>');
}

/** A script's place in a fingerprint: its path on the site, or host and path elsewhere. */
function scriptKey(url: string, site: string): string {
  return isSiteAddress(url, site) ? scriptPath(url) : `${hostOf(url) ?? ''}${scriptPath(url)}`;
}

/** The group an error belongs to: 16 hex digits of a SHA-256 of its type, normalised message and top frame. */
export function errorFingerprint(error: ErrorParts): string {
  const frame = error.stack ? topFrame(error.stack, error.site) : null;
  const where = frame
    ? `${scriptKey(frame.url, error.site)}\n${frame.fn}`
    : error.script
      ? scriptKey(error.script, error.site)
      : '';
  const key = `${error.type}\n${normalizeMessage(error.type, error.message)}\n${where}`;
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
