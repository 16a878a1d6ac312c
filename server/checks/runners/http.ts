import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls, { type TLSSocket } from 'node:tls';
import type { Assertion } from '../../../protocol/check.ts';
import { expandAll, notSet } from '../../config/env-refs.ts';
import { evaluate, needsBody, statusMatches } from '../assertions.ts';
import type { Runner, RunOutcome } from '../run.ts';
import {
  DAY_MS,
  daysFromNow,
  down,
  isoDate,
  networkDetail,
  resolveTarget,
  safe,
  timedOut,
  worst,
} from './shared.ts';

/** GET and HEAD follow this many redirects; one more is a failure. */
export const MAX_REDIRECTS = 5;
/** Body assertions look at this much of the response. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** A certificate that expires within this many days makes the run degraded. */
export const CERT_DEGRADED_DAYS = 14;

const redirectCodes = new Set([301, 302, 303, 307, 308]);

type Response = { res: IncomingMessage; certExpires: number | null };

export const httpRunner: Runner = safe(async (check, ctx) => {
  const resolved = resolveTarget(check, ctx.env);
  if ('outcome' in resolved) return resolved.outcome;
  const headers = expandAll(check.headers, ctx.env);
  if (!headers.ok) return down(`${notSet(headers.missing)} (used in a header)`);
  const method = check.method ?? 'GET';
  const follow = method === 'GET' || method === 'HEAD';
  const { signal } = ctx;
  const start = performance.now();
  let url = new URL(resolved.target);
  const origin = url.origin;
  let expiry: RunOutcome['expiry'];
  const fail = (detail: string, latencyMs: number | null = null): RunOutcome => ({
    ...down(detail, latencyMs),
    ...(expiry !== undefined && { expiry }),
  });

  for (let redirects = 0; ; redirects++) {
    // Configured headers (often credentials) go to the check's own origin only.
    const sent = url.origin === origin ? headers.values : {};
    let response: Response;
    try {
      response = await send(url, method, sent, signal, ctx.extraCa);
    } catch (error) {
      if (signal.aborted) return fail(timedOut(check));
      if (url.protocol === 'https:' && isCertificateError(error)) {
        const expires = await peekCertificateExpiry(url, signal);
        if (expires !== null) expiry = { kind: 'certificate', expires };
        return fail(`certificate error: ${certificateMessage(error)}`);
      }
      if (url.protocol === 'https:' && isTlsError(error)) {
        return fail('TLS handshake failed (does this port speak HTTPS?)');
      }
      return fail(networkDetail(error));
    }
    const { res, certExpires } = response;
    // The certificate observed is the final URL's: a plain http:// hop has none.
    expiry =
      url.protocol === 'http:'
        ? undefined
        : certExpires === null
          ? expiry
          : { kind: 'certificate', expires: certExpires };
    const code = res.statusCode ?? 0;
    const location = res.headers.location;
    if (follow && redirectCodes.has(code) && location) {
      discard(res);
      if (redirects === MAX_REDIRECTS) return fail(`too many redirects (more than ${MAX_REDIRECTS})`);
      let next: URL;
      try {
        next = new URL(location, url);
      } catch {
        return fail(`redirect to an invalid URL: ${location.slice(0, 200)}`);
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        return fail(`redirect to an unsupported URL scheme ${next.protocol}`);
      url = next;
      continue;
    }

    const latencyMs = Math.round(performance.now() - start);
    let body: string | undefined;
    try {
      if (needsBody(check.expect) && method !== 'HEAD') body = await readBody(res, MAX_BODY_BYTES);
      else discard(res);
    } catch (error) {
      if (signal.aborted) return fail(timedOut(check), latencyMs);
      return fail(`reading the body failed: ${networkDetail(error)}`, latencyMs);
    }
    return judge(check.expect, code, res.statusMessage ?? '', !follow, body, latencyMs, expiry, ctx.now());
  }
});

function judge(
  expect: Assertion[],
  code: number,
  statusText: string,
  notFollowed: boolean,
  body: string | undefined,
  latencyMs: number,
  expiry: RunOutcome['expiry'],
  now: number,
): RunOutcome {
  const notes: string[] = [];
  let status: RunOutcome['status'] = 'up';
  // Without a status assertion, 2xx is required.
  if (!expect.some((a) => a.status !== undefined) && !statusMatches('2xx', code)) {
    status = 'down';
    if (notFollowed && redirectCodes.has(code)) notes.push('redirects are followed only for GET and HEAD');
  }
  const verdict = evaluate(expect, { latencyMs, statusCode: code, body });
  status = worst(status, verdict.status);
  notes.push(...verdict.failures);
  if (expiry) {
    const cert = certificateStatus(expiry.expires, now);
    status = worst(status, cert.status);
    if (cert.note) notes.push(cert.note);
  }
  const detail = [`${code} ${statusText}`.trim(), ...notes].join('; ');
  return { status, latencyMs, detail, ...(expiry !== undefined && { expiry }) };
}

/** Certificates: degraded within CERT_DEGRADED_DAYS of expiry, down once expired. */
export function certificateStatus(
  expires: number,
  now: number,
): { status: RunOutcome['status']; note?: string } {
  if (expires <= now) return { status: 'down', note: `certificate expired ${daysFromNow(expires, now)}` };
  if (expires - now <= CERT_DEGRADED_DAYS * DAY_MS)
    return {
      status: 'degraded',
      note: `certificate expires ${daysFromNow(expires, now)} (${isoDate(expires)})`,
    };
  return { status: 'up' };
}

/** Connections idle this long are closed (below the 5 s keep-alive of common servers). */
const IDLE_MS = 4000;
/** Idle connections kept per origin at most; more are closed when their responses end. */
const MAX_IDLE_PER_ORIGIN = 8;
/** A connection is not reused once this old, so that a renewed certificate is seen within a minute. */
export const MAX_CONNECTION_AGE_MS = 60_000;
/** A body nobody reads is drained (so the connection can be reused) up to this size, else dropped. */
const DRAIN_MAX_BYTES = 64 * 1024;
/** https agents kept, one per set of extra roots (the configuration has one). */
const MAX_TLS_AGENTS = 4;

/**
 * Keep-alive agents: Node's agent pools connections per origin (host, port and TLS options). Busy
 * connections are bounded by the engine's concurrency, idle ones by MAX_IDLE_PER_ORIGIN and IDLE_MS.
 * A fresh connection per run cost ~11 KB of garbage and ~80 µs of CPU more per run, most of the
 * engine's load at 1,000 runs/s; latency is then the time to the response on a warm connection.
 */
const born = new WeakMap<object, number>();
function keepAlive<A extends http.Agent>(agent: A): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    if (socket) born.set(socket, Date.now());
    return socket;
  };
  const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
  (agent as unknown as { keepSocketAlive: (socket: Duplex) => boolean }).keepSocketAlive = (socket) => {
    if (Date.now() - (born.get(socket) ?? 0) >= MAX_CONNECTION_AGE_MS || !keep(socket)) return false;
    // The idle timeout, set here rather than as the agent's `timeout` option: that option also arms a
    // timeout on every request, which kept each request's objects alive long enough to be promoted
    // out of the young generation (~3x the old-space growth at 1,000 runs/s).
    const { timeout } = socket as Socket;
    if (!timeout || timeout > IDLE_MS) (socket as Socket).setTimeout(IDLE_MS);
    return true;
  };
  return agent;
}
const agentOptions = { keepAlive: true, maxFreeSockets: MAX_IDLE_PER_ORIGIN };
const httpAgent = keepAlive(new http.Agent(agentOptions));
/** By extra roots: a connection verified against one set of roots never serves another set. */
const tlsAgents = new Map<string, https.Agent>();
function tlsAgent(extraCa: string[] | undefined): https.Agent {
  const key = (extraCa ?? []).join('\n');
  let agent = tlsAgents.get(key);
  if (!agent) {
    if (tlsAgents.size >= MAX_TLS_AGENTS) {
      const [oldKey, old] = tlsAgents.entries().next().value!;
      tlsAgents.delete(oldKey);
      for (const sockets of Object.values(old.freeSockets)) for (const s of sockets ?? []) s.destroy();
    }
    // Node's default roots (bundled, plus system or extra ones when Node is told to use them) and extraCa.
    const ca = [...tls.getCACertificates('default'), ...(extraCa ?? [])];
    const secureContext = tls.createSecureContext({ ca });
    // No session resumption: each new connection verifies the certificate in a full handshake.
    agent = keepAlive(
      new https.Agent({ ...agentOptions, secureContext, rejectUnauthorized: true, maxCachedSessions: 0 }),
    );
    tlsAgents.set(key, agent);
  }
  return agent;
}

/** Errors of a kept-alive connection that the server closed just as the request went out. */
const staleConnection = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  extraCa: string[] | undefined,
  retried = false,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const hasUserAgent = Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent');
    const secure = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method,
      headers: { ...(!hasUserAgent && { 'user-agent': 'mon-check/1' }), ...headers },
      signal,
      agent: secure ? tlsAgent(extraCa) : httpAgent,
    };
    const req = (secure ? https : http).request(url, options, (res) => {
      let certExpires: number | null = null;
      if (secure) {
        const cert = (res.socket as TLSSocket).getPeerCertificate?.();
        const parsed = cert?.valid_to ? Date.parse(cert.valid_to) : Number.NaN;
        if (Number.isFinite(parsed)) certExpires = parsed;
      }
      resolve({ res, certExpires });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      // Once, on a new connection: the server may close an idle one at any time.
      if (req.reusedSocket && !retried && !signal.aborted && staleConnection.has(error.code ?? ''))
        send(url, method, headers, signal, extraCa, true).then(resolve, reject);
      else reject(error);
    });
    req.end();
  });
}

/** How long a body nobody reads may take to arrive before its connection is closed. */
const DRAIN_WAIT_MS = 2000;

/** Drops a body nobody reads: a short one is drained so the connection can serve the next run. */
function discard(res: IncomingMessage): void {
  res.on('error', () => {});
  const length = Number(res.headers['content-length'] ?? Number.NaN);
  if (res.complete || length === 0) return void res.resume();
  if (length > DRAIN_MAX_BYTES) return void res.destroy();
  let seen = 0;
  res.on('data', (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > DRAIN_MAX_BYTES) res.destroy();
  });
  // A server that stalls mid-body must not hold the connection after the run: give up on it.
  const stalled = setTimeout(() => res.destroy(), DRAIN_WAIT_MS);
  stalled.unref();
  res.once('close', () => clearTimeout(stalled));
  res.resume();
}

/** Node's message without its advice on Node flags: mon takes extra roots from its own settings. */
function certificateMessage(error: unknown): string {
  return ((error as Error).message ?? String(error)).split('; if the root CA')[0]!.trim();
}

function isTlsError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  return code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_');
}

function isCertificateError(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException)?.code ?? '';
  return /CERT|SELF_SIGNED|UNABLE_TO_|INVALID_CA|ISSUER/.test(code);
}

/**
 * After a failed verification, a bare handshake (nothing is sent) reads the leaf certificate's expiry so
 * that an expired certificate still shows its date.
 */
function peekCertificateExpiry(url: URL, signal: AbortSignal): Promise<number | null> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(null);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({
      host,
      port: Number(url.port || 443),
      servername: isIP(host) ? undefined : host,
      rejectUnauthorized: false,
    });
    const finish = (value: number | null) => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(value);
    };
    const onAbort = () => finish(null);
    signal.addEventListener('abort', onAbort);
    socket.once('secureConnect', () => {
      const parsed = Date.parse(socket.getPeerCertificate()?.valid_to ?? '');
      finish(Number.isFinite(parsed) ? parsed : null);
    });
    socket.once('error', () => finish(null));
  });
}

/** Reads up to `limit` bytes of the body, then stops the transfer. */
function readBody(res: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => resolve(Buffer.concat(chunks).subarray(0, limit).toString('utf8'));
    res.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= limit) {
        res.removeAllListeners('end');
        res.destroy();
        done();
      }
    });
    res.once('end', done);
    res.once('error', reject);
    res.once('close', () => {
      if (!res.complete) reject(new Error('connection closed before the body ended'));
    });
  });
}
