import dns, { type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { privateReason } from './private-addresses.ts';

/**
 * Requests mon sends on its own behalf (notifications, the channel test button, the watchdog): the one
 * way out. Private, loopback, link-local, carrier-grade NAT and multicast addresses are refused unless
 * the caller allows private addresses, checked on the address the socket connects to: the name is
 * resolved once, by the lookup function the socket itself calls, so a name that answers a public
 * address to one lookup and a private one to the next (DNS rebinding) cannot get past it, and every
 * redirect is a new connection checked the same way.
 */

/** A request refused because of where it would go; its message says where and why. */
export class OutboundRefused extends Error {
  readonly code = 'EPRIVATE';
}

const howToAllow = 'private addresses are not allowed for this channel';

export type OutboundRequest = {
  url: string;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  allowPrivate: boolean;
  signal?: AbortSignal;
  /** The whole exchange, redirects included; default 10 s. */
  timeoutMs?: number;
  /** Followed for GET and HEAD only (default 5); other methods answer the 3xx as it came. */
  maxRedirects?: number;
  /** At most this much of the answer's body is kept (default 64 KiB). */
  maxBodyBytes?: number;
};

export type OutboundResponse = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The URL that answered, after redirects. */
  url: string;
};

/** Refuses `host` as written when it is an IP address that is not public; names are checked at lookup. */
function refusedLiteral(host: string, allowPrivate: boolean): OutboundRefused | null {
  const bare = host.replace(/^\[|\]$/g, '');
  if (allowPrivate || !isIP(bare)) return null;
  const reason = privateReason(bare);
  return reason ? new OutboundRefused(`refused ${bare}: ${reason}; ${howToAllow}`) : null;
}

/** The refusal of `host` that resolved to `addresses` (any one private address refuses the name), or null. */
function refusedAnswer(host: string, addresses: LookupAddress[]): OutboundRefused | null {
  for (const { address } of addresses) {
    const reason = privateReason(address);
    if (reason) return new OutboundRefused(`refused ${host} (${address}): ${reason}; ${howToAllow}`);
  }
  return null;
}

/** The lookup function of outbound sockets: the system's resolution, refused as above. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (host, options, callback) => {
    const family =
      options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    dns.promises.lookup(host, { all: true, family, ...(options.hints ? { hints: options.hints } : {}) }).then(
      (addresses) => {
        const refused = allowPrivate ? null : refusedAnswer(host, addresses);
        if (refused) return callback(refused, '', 0);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/**
 * The one address to connect to for `host` (a name or an address), refused unless public or
 * `allowPrivate`: for clients that do their own connecting (SMTP), which then connect to this address
 * and verify TLS against the name.
 */
export async function outboundAddress(
  host: string,
  allowPrivate: boolean,
): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const literal = refusedLiteral(bare, allowPrivate);
  if (literal) throw literal;
  const family = isIP(bare);
  if (family) return { address: bare, family };
  const addresses = await dns.promises.lookup(bare, { all: true });
  const refused = allowPrivate ? null : refusedAnswer(bare, addresses);
  if (refused) throw refused;
  return addresses[0]!;
}

/**
 * Sends one request and reads its answer. Throws OutboundRefused for a refused address (also on a
 * redirect), an AbortError-like error when `signal` aborts or the time runs out, and network errors as
 * Node raises them. Any HTTP status is an answer, not an error.
 */
export async function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  const method = request.method ?? 'GET';
  const follows = method === 'GET' || method === 'HEAD';
  const maxRedirects = follows ? (request.maxRedirects ?? 5) : 0;
  const timeout = AbortSignal.timeout(request.timeoutMs ?? 10_000);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  let url = new URL(request.url);
  for (let hop = 0; ; hop++) {
    const answer = await once(url, method, request, signal);
    const location = answer.headers.location;
    if (answer.status >= 300 && answer.status < 400 && location && hop < maxRedirects) {
      url = new URL(location, url);
      continue;
    }
    return { ...answer, url: url.toString() };
  }
}

function once(
  url: URL,
  method: string,
  request: OutboundRequest,
  signal: AbortSignal,
): Promise<Omit<OutboundResponse, 'url'>> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return reject(new OutboundRefused(`refused ${url.protocol} URL: only http and https are sent`));
    const refused = refusedLiteral(url.hostname, request.allowPrivate);
    if (refused) return reject(refused);
    if (signal.aborted) return reject(signal.reason);
    const send = url.protocol === 'https:' ? https.request : http.request;
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers: Record<string, string> = { 'user-agent': 'mon', ...request.headers };
    if (body) headers['content-length'] = String(body.length);
    const req = send(url, {
      method,
      headers,
      // One connection per request: each is looked up (and checked) afresh, none is reused.
      agent: false,
      lookup: guardedLookup(request.allowPrivate),
      signal,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const limit = request.maxBodyBytes ?? 65_536;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (size < limit) chunks.push(chunk.subarray(0, limit - size));
        size += chunk.length;
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.end(body);
  });
}
