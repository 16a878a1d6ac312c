/**
 * Request headers of http checks: sent exactly as written, or refused. Values may reference
 * `${NAME}`; reads never show a literal value (it often holds a credential). No schema library here:
 * the runners check header values at each run, in the agent too (check.ts has the body's schema).
 */

export const MAX_HEADERS = 50;

/**
 * Headers that frame the request or belong to one connection: mon writes them itself, and a value of
 * the check's would change how the request travels (or smuggle a second one) rather than what it says.
 */
const reserved = new Set([
  'connection',
  'content-length',
  'expect',
  'host',
  'http2-settings',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** A header name: an HTTP token. */
const headerName = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/;

/** Why `name` cannot be a check's request header, or null. */
export function headerNameProblem(name: string): string | null {
  if (!headerName.test(name))
    return "must be a header name: 1 to 100 letters, digits or ! # $ % & ' * + - . ^ _ ` | ~";
  if (reserved.has(name.toLowerCase()))
    return 'cannot be set: mon writes the framing and connection headers of a request itself';
  return null;
}

/**
 * Why `value` cannot be sent as a header value, or null. HTTP carries header values as bytes: tab,
 * printable ASCII and Latin-1 letters (up to ÿ) go as written; control characters and anything beyond
 * Latin-1 cannot. Used on values as written and, at each run, with `${NAME}` filled in.
 */
export function headerValueProblem(value: string): string | null {
  if (value.length > 8192) return 'must be at most 8192 characters';
  // Any control character but the tab, which header values may hold.
  if (/[^\t\P{Cc}]/u.test(value)) return 'must not contain line breaks or other control characters';
  if (/[^\p{ASCII}\u0080-\u00ff]/u.test(value))
    return 'must contain only Latin-1 characters (HTTP cannot send others in a header, such as € or emoji)';
  return null;
}

/** `${NAME}` alone: a value reads may show, since it holds no value itself. */
function isReference(value: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value.trim());
}

type WithHeaders = { headers?: Record<string, string | null> | null | undefined };

/**
 * Reads never show literal header values (they often hold credentials): each becomes null, which a
 * PUT sends back to keep the stored value. Values that only reference `${NAME}` stay visible.
 */
export function hideHeaderValues<B extends WithHeaders>(body: B): B {
  if (!body.headers) return body;
  const headers = Object.fromEntries(
    Object.entries(body.headers).map(([name, value]) => [
      name,
      value !== null && isReference(value) ? value : null,
    ]),
  );
  return { ...body, headers };
}

/** Fills header values sent as null from `stored`; returns the name of a header with nothing to keep. */
export function keepStoredHeaders<B extends WithHeaders>(
  body: B,
  stored: WithHeaders | null,
): { body: B; missing: string | null } {
  if (!body.headers) return { body, missing: null };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(body.headers)) {
    const kept = value ?? stored?.headers?.[name] ?? null;
    if (kept === null) return { body, missing: name };
    headers[name] = kept;
  }
  return { body: { ...body, headers }, missing: null };
}
