import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import tls, { type SecureContext, type TLSSocket } from 'node:tls';
import type { Assertion } from '../../../protocol/check.ts';
import { evaluate, needsBody, statusMatches } from '../assertions.ts';
import { expandAll } from '../env-refs.ts';
import type { Runner, RunOutcome } from '../run.ts';
import {
  DAY_MS,
  daysFromNow,
  down,
  isoDate,
  networkDetail,
  runSignal,
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
  const headers = expandAll(check.headers, ctx.env);
  if (!headers.ok) return down(`environment variable ${headers.missing} is not set (used in a header)`);
  const method = check.method ?? 'GET';
  const follow = method === 'GET' || method === 'HEAD';
  const signal = runSignal(check, ctx);
  const start = performance.now();
  let url = new URL(check.target!);
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
        return fail(`certificate error: ${(error as Error).message}`);
      }
      return fail(networkDetail(error));
    }
    const { res, certExpires } = response;
    expiry = certExpires === null ? expiry : { kind: 'certificate', expires: certExpires };
    const code = res.statusCode ?? 0;
    const location = res.headers.location;
    if (follow && redirectCodes.has(code) && location) {
      res.destroy();
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
      else res.destroy();
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

function send(
  url: URL,
  method: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  extraCa: string[] | undefined,
): Promise<Response> {
  return new Promise((resolve, reject) => {
    const hasUserAgent = Object.keys(headers).some((k) => k.toLowerCase() === 'user-agent');
    const options: https.RequestOptions = {
      method,
      headers: { ...(!hasUserAgent && { 'user-agent': 'mon-check/1' }), ...headers },
      signal,
      // A fresh connection each run: the run measures the whole path and sees the current certificate.
      agent: false,
    };
    const secure = url.protocol === 'https:';
    if (secure) Object.assign(options, { secureContext: secureContext(extraCa), rejectUnauthorized: true });
    const req = (secure ? https : http).request(url, options, (res) => {
      let certExpires: number | null = null;
      if (secure) {
        const cert = (res.socket as TLSSocket).getPeerCertificate?.();
        const parsed = cert?.valid_to ? Date.parse(cert.valid_to) : Number.NaN;
        if (Number.isFinite(parsed)) certExpires = parsed;
      }
      resolve({ res, certExpires });
    });
    req.on('error', reject);
    req.end();
  });
}

/** Node's default roots (bundled, plus system/extra ones when Node is told to use them) and extraCa. */
let cachedContext: { key: string; context: SecureContext } | null = null;
function secureContext(extraCa: string[] | undefined): SecureContext {
  const key = (extraCa ?? []).join('\n');
  if (cachedContext?.key !== key) {
    const context = tls.createSecureContext({
      ca: [...tls.getCACertificates('default'), ...(extraCa ?? [])],
    });
    cachedContext = { key, context };
  }
  return cachedContext.context;
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
