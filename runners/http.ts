import http, { type IncomingMessage, STATUS_CODES } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import type { Assertion } from '../protocol/check.ts';
import { isoDate } from '../protocol/iso-time.ts';
import { evaluate, needsBody, statusMatches } from './assertions.ts';
import { agentFor, type Via } from './http-agents.ts';
import { guardedLookup, RefusedTarget, refusedHost } from './link-local.ts';
import type { Runner, RunOutcome } from './run.ts';
import {
  DAY_MS,
  daysFromNow,
  down,
  networkDetail,
  resolveHeaders,
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
  const resolved = resolveTarget(check, ctx);
  if ('outcome' in resolved) return resolved.outcome;
  const headers = resolveHeaders(check, ctx);
  if ('outcome' in headers) return headers.outcome;
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

  const via = { extraCa: ctx.extraCa, allowLinkLocal: check.allowLinkLocal, dnsServers: ctx.dnsServers };
  for (let redirects = 0; ; redirects++) {
    // Configured headers (often credentials) go to the check's own origin only.
    const sent = url.origin === origin ? headers.headers : {};
    let response: Response;
    try {
      const refused = refusedHost(url.hostname, check.allowLinkLocal);
      if (refused) throw refused;
      response = await send(url, method, sent, signal, via);
    } catch (error) {
      if (signal.aborted) return fail(timedOut(check));
      // A redirect's target is the peer's text: it is not quoted.
      if (error instanceof RefusedTarget && redirects > 0)
        return fail(
          'refused a redirect to a link-local address; the check does not allow link-local addresses',
        );
      if (url.protocol === 'https:' && isCertificateError(error)) {
        const expires = await peekCertificateExpiry(url, signal, via);
        if (expires !== null) expiry = { kind: 'certificate', expires };
        return fail(`certificate error: ${certificateMessage(error, url)}`);
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
        return fail('redirect to an invalid URL');
      }
      if (next.protocol !== 'http:' && next.protocol !== 'https:')
        return fail('redirect to a URL that is not http:// or https://');
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
    return judge(check.expect, code, !follow, body, latencyMs, expiry, ctx.now());
  }
});

function judge(
  expect: Assertion[],
  code: number,
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
  // The standard reason phrase, not the peer's: what a server writes there is its own text.
  const detail = [`${code} ${STATUS_CODES[code] ?? ''}`.trim(), ...notes].join('; ');
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

/** A body nobody reads is drained (so the connection can be reused) up to this size, else dropped. */
const DRAIN_MAX_BYTES = 64 * 1024;

/** Errors of a kept-alive connection that the server closed just as the request went out. */
const staleConnection = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  via: Via,
  retried = false,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const hasUserAgent = Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent');
    const secure = url.protocol === 'https:';
    const options: https.RequestOptions = {
      method,
      headers: { ...(!hasUserAgent && { 'user-agent': 'mon-check/1' }), ...headers },
      signal,
      agent: agentFor(secure, via),
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
        send(url, method, headers, signal, via, true).then(resolve, reject);
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

/**
 * Node's message without its advice on Node flags (mon takes extra roots from its own settings), or
 * mon's words where Node's would quote the peer's certificate (the names it was issued for).
 */
function certificateMessage(error: unknown, url: URL): string {
  if ((error as NodeJS.ErrnoException)?.code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the certificate is not valid for ${url.hostname}`;
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
function peekCertificateExpiry(url: URL, signal: AbortSignal, via: Via): Promise<number | null> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(null);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const socket = tls.connect({
      host,
      port: Number(url.port || 443),
      servername: isIP(host) ? undefined : host,
      rejectUnauthorized: false,
      lookup: guardedLookup(via.allowLinkLocal, via.dnsServers),
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
