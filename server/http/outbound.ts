import type { LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { lookupRefusing, resolve } from '../../runners/lookup.ts';
import { privateReason } from './private-addresses.ts';

/**
 * Requests mon sends on its own behalf (notifications, the channel test button, the watchdog): the one
 * way out. Private, loopback, link-local, carrier-grade NAT and multicast addresses are refused unless
 * the caller allows private addresses, checked on the address the socket connects to: the name is
 * resolved once, by the lookup function the socket itself calls (lookup.ts), so a name that answers a
 * public address to one lookup and a private one to the next (DNS rebinding) cannot get past it, and
 * every redirect is a new connection checked the same way. docs/notifications.md, "Private addresses".
 */

/**
 * A request refused because of where it would go: `refusal` says where and why ("refused 10.0.0.5: a
 * private address"); the message adds that private addresses are not allowed. A caller whose users
 * have a switch to allow them (a channel's or the watchdog's `allowPrivate`) names it after `refusal`.
 */
export class OutboundRefused extends Error {
  readonly code = 'EPRIVATE';
  readonly refusal: string;
  /** Refused for being a private address (rather than, say, a scheme mon does not send to). */
  readonly privateAddress: boolean;
  constructor(refusal: string, privateAddress = true) {
    super(privateAddress ? `${refusal}; private addresses are not allowed here` : refusal);
    this.refusal = refusal;
    this.privateAddress = privateAddress;
  }
}

export type OutboundRequest = {
  url: string;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  allowPrivate: boolean;
  signal?: AbortSignal | undefined;
  /** The whole exchange, redirects included; default 10 s. */
  timeoutMs?: number;
  /** Followed for GET and HEAD only (default 5); other methods answer the 3xx as it came. */
  maxRedirects?: number;
  /** At most this much of the answer's body is read (default 64 KiB); the rest is not waited for. */
  maxBodyBytes?: number;
  /** Tests only: DNS servers to resolve names with instead of the system's (a server of the test). */
  dnsServers?: string[] | undefined;
  /**
   * Tests only: addresses taken as public. A test has no server on the internet; one listening on a
   * loopback address named here (127.0.0.2) stands in for it, while every other address is judged as
   * in production.
   */
  publicAddresses?: string[] | undefined;
};

export type OutboundResponse = {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The URL that answered, after redirects. */
  url: string;
};

/** Why a request may not reach `address` (an IP address), or null when it may. */
type Judge = (address: string) => string | null;

function judgeOf(allowPrivate: boolean, publicAddresses: string[] = []): Judge {
  return (address) => (allowPrivate || publicAddresses.includes(address) ? null : privateReason(address));
}

/** The refusal of `host` as written when it is an IP address that may not be reached; names are judged at lookup. */
function refusedLiteral(host: string, judge: Judge): OutboundRefused | null {
  const bare = host.replace(/^\[|\]$/g, '');
  if (!isIP(bare)) return null;
  const reason = judge(bare);
  return reason ? new OutboundRefused(`refused ${bare}: ${reason}`) : null;
}

/** The refusal of `host` that resolved to `addresses` (any one refused address refuses the name), or null. */
function refusedAnswer(judge: Judge) {
  return (host: string, addresses: LookupAddress[]): OutboundRefused | null => {
    for (const { address } of addresses) {
      const reason = judge(address);
      if (reason) return new OutboundRefused(`refused ${host} (${address}): ${reason}`);
    }
    return null;
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
  dnsServers?: string[],
): Promise<{ address: string; family: number }> {
  const bare = host.replace(/^\[|\]$/g, '');
  const judge = judgeOf(allowPrivate);
  const literal = refusedLiteral(bare, judge);
  if (literal) throw literal;
  const family = isIP(bare);
  if (family) return { address: bare, family };
  const addresses = await resolve(bare, 0, dnsServers);
  const refused = refusedAnswer(judge)(bare, addresses);
  if (refused) throw refused;
  return addresses[0]!;
}

/** Idle connections are closed after this long (below the 5 s keep-alive of common servers). */
const IDLE_MS = 4000;
/** Agents kept, one per way of judging addresses: few exist (allowed or not, tests' resolvers). */
const MAX_AGENTS = 8;
const agents = new Map<string, http.Agent>();

/**
 * Keep-alive agents, one per way of judging addresses: a connection is looked up and checked when it
 * is opened (by the agent's lookup), so a connection kept for reuse goes to an address that was
 * checked, and one opened where private addresses are allowed never serves a request where they are
 * not. Reusing connections spares a connect per message when a burst of incidents goes out.
 */
function agentFor(secure: boolean, request: OutboundRequest, judge: Judge): http.Agent {
  const key = [
    secure,
    request.allowPrivate,
    request.publicAddresses?.join(',') ?? '',
    request.dnsServers?.join(',') ?? '',
  ].join('|');
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldKey, old] = agents.entries().next().value!;
      agents.delete(oldKey);
      old.destroy();
    }
    const options = {
      keepAlive: true,
      maxFreeSockets: 8,
      timeout: IDLE_MS,
      lookup: lookupRefusing(request.dnsServers, refusedAnswer(judge)),
    };
    agent = secure ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

/** Closes the idle connections kept for reuse (at the server's stop); the next request connects afresh. */
export function closeIdleConnections(): void {
  for (const agent of agents.values())
    for (const sockets of Object.values(agent.freeSockets))
      for (const socket of sockets ?? []) socket.destroy();
}

/** Headers that carry credentials: not sent on to another origin by a redirect. */
const credentialHeaders = new Set(['authorization', 'cookie', 'proxy-authorization']);

/**
 * Sends one request and reads its answer. Throws OutboundRefused for a refused address (also on a
 * redirect), an error naming the time limit when it runs out, the signal's reason when `signal`
 * aborts, and network errors as Node raises them. Any HTTP status is an answer, not an error.
 */
export async function outboundRequest(request: OutboundRequest): Promise<OutboundResponse> {
  const method = request.method ?? 'GET';
  const follows = method === 'GET' || method === 'HEAD';
  const maxRedirects = follows ? (request.maxRedirects ?? 5) : 0;
  const timeoutMs = request.timeoutMs ?? 10_000;
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  const judge = judgeOf(request.allowPrivate, request.publicAddresses);
  const first = new URL(request.url);
  let url = first;
  let headers = request.headers ?? {};
  try {
    for (let hop = 0; ; hop++) {
      const answer = await once(url, method, headers, request, judge, signal);
      const location = answer.headers.location;
      if (answer.status >= 300 && answer.status < 400 && location && hop < maxRedirects) {
        url = new URL(location, url);
        if (url.origin !== first.origin)
          headers = Object.fromEntries(
            Object.entries(headers).filter(([name]) => !credentialHeaders.has(name.toLowerCase())),
          );
        continue;
      }
      return { ...answer, url: url.toString() };
    }
  } catch (error) {
    if (error instanceof OutboundRefused) throw error;
    if (request.signal?.aborted) throw request.signal.reason;
    if (timeout.aborted)
      throw Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' });
    throw error;
  }
}

function once(
  url: URL,
  method: string,
  extraHeaders: Record<string, string>,
  request: OutboundRequest,
  judge: Judge,
  signal: AbortSignal,
): Promise<Omit<OutboundResponse, 'url'>> {
  return new Promise((resolve, reject) => {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      return reject(new OutboundRefused(`refused ${url.protocol} URL: only http and https are sent`, false));
    const refused = refusedLiteral(url.hostname, judge);
    if (refused) return reject(refused);
    if (signal.aborted) return reject(signal.reason);
    const send = url.protocol === 'https:' ? https.request : http.request;
    const body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers: Record<string, string> = { 'user-agent': 'mon', ...extraHeaders };
    if (body) headers['content-length'] = String(body.length);
    const req = send(url, {
      method,
      headers,
      agent: agentFor(url.protocol === 'https:', request, judge),
      signal,
    });
    req.on('error', reject);
    req.on('response', (res) => {
      const limit = request.maxBodyBytes ?? 65_536;
      const chunks: Buffer[] = [];
      let size = 0;
      const answer = () => ({
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk.subarray(0, limit - size));
        size += Math.min(chunk.length, limit - size);
        // Enough read: an endless answer does not hold the request until its time runs out.
        if (size >= limit) {
          resolve(answer());
          req.destroy();
        }
      });
      res.on('error', reject);
      res.on('end', () => resolve(answer()));
    });
    req.end(body);
  });
}
