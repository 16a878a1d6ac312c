import { createHash } from 'node:crypto';

/**
 * JavaScript errors are grouped by a fingerprint: the error's type, its message with the parts that
 * vary between occurrences replaced (numbers, hex, ids, URLs, quoted text), and its top frame (the
 * first stack frame with a web address: the file's path without host or query, and the function).
 * Line and column are left out: they move with every build.
 */

export type ErrorParts = {
  type: string;
  message: string;
  /** The script the error was thrown in, used when no stack frame has an address. */
  script: string | null;
  stack: string | null;
};

/** The placeholders of `normalizeMessage`, longest patterns first so that a URL is not seen as numbers. */
const replacements: [RegExp, string][] = [
  [/\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`)<>]+/gi, '<url>'],
  [/'[^']*'|"[^"]*"|`[^`]*`|‘[^’]*’|“[^”]*”/g, '<str>'],
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

/** The first frame of a stack whose address is a web address (http or https), or null. */
export function topFrame(stack: string): Frame | null {
  for (const line of stack.split('\n')) {
    const match = chromeFrame.exec(line) ?? geckoFrame.exec(line);
    if (!match) continue;
    const url = match[2]!;
    if (!/^https?:\/\//i.test(url)) continue;
    return { fn: functionName(match[1] ?? ''), url };
  }
  return null;
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

/** The group an error belongs to: 16 hex digits of a SHA-256 of its type, normalised message and top frame. */
export function errorFingerprint(error: ErrorParts): string {
  const frame = error.stack ? topFrame(error.stack) : null;
  const where = frame
    ? `${scriptPath(frame.url)}\n${frame.fn}`
    : error.script
      ? scriptPath(error.script)
      : '';
  const key = `${error.type}\n${normalizeMessage(error.type, error.message)}\n${where}`;
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}
