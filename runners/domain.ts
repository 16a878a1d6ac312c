import { STATUS_CODES } from 'node:http';
import { isoDate } from '../protocol/iso-time.ts';
import type { Runner, RunOutcome } from './run.ts';
import { DAY_MS, daysFromNow, down, networkDetail, resolveTarget, safe, timedOut } from './shared.ts';

export const DEFAULT_RDAP_BOOTSTRAP_URL = 'https://data.iana.org/rdap/dns.json';
/** Registration expiring within this many days is degraded... */
export const DOMAIN_DEGRADED_DAYS = 30;
/** ...and within this many days (or expired) down. */
export const DOMAIN_DOWN_DAYS = 7;
/** The bootstrap file changes rarely; one fetch a day per URL. */
const BOOTSTRAP_TTL_MS = DAY_MS;
const MAX_RESPONSE_BYTES = 1024 * 1024;
const BOOTSTRAP_FETCH_MS = 30_000;

type Services = [string[], string[]][];
const bootstraps = new Map<string, { at: number; services: Promise<Services> }>();

/**
 * Reads the domain's registration expiry over RDAP: the IANA bootstrap file names the registry's RDAP
 * server for the top-level domain, which answers `<base>domain/<name>` with an `expiration` event.
 */
export const domainRunner: Runner = safe(async (check, ctx) => {
  const resolved = resolveTarget(check, ctx);
  if ('outcome' in resolved) return resolved.outcome;
  const name = resolved.target.trim().toLowerCase().replace(/\.$/, '');
  const { signal } = ctx;
  let services: Services;
  try {
    services = await bootstrap(ctx.rdapBootstrapUrl ?? DEFAULT_RDAP_BOOTSTRAP_URL, ctx.now(), signal);
  } catch (error) {
    return down(signal.aborted ? timedOut(check) : `RDAP bootstrap failed: ${describe(error)}`);
  }
  const base = rdapBase(services, name);
  if (!base) return down(`no RDAP service is known for .${name.split('.').at(-1)}`);

  const start = performance.now();
  let doc: unknown;
  let latencyMs: number | null = null;
  try {
    const res = await fetch(new URL(`domain/${encodeURIComponent(name)}`, base), {
      signal,
      headers: { accept: 'application/rdap+json, application/json' },
    });
    latencyMs = Math.round(performance.now() - start);
    if (res.status === 404) {
      await res.body?.cancel();
      return down('domain not found at its RDAP server (404)', latencyMs);
    }
    if (!res.ok) {
      await res.body?.cancel();
      // The standard reason phrase, not the server's own text.
      return down(`RDAP server answered ${res.status} ${STATUS_CODES[res.status] ?? ''}`.trim(), latencyMs);
    }
    doc = JSON.parse(await readLimited(res, MAX_RESPONSE_BYTES));
  } catch (error) {
    return down(signal.aborted ? timedOut(check) : `RDAP query failed: ${describe(error)}`, latencyMs);
  }
  const expires = expirationOf(doc);
  if (expires === null) return down('the RDAP answer has no expiration date', latencyMs);
  return { ...domainStatus(expires, ctx.now()), latencyMs, expiry: { kind: 'domain', expires } };
});

/** Up beyond 30 days; degraded within 30 days; down within 7 days or once expired. */
export function domainStatus(expires: number, now: number): Pick<RunOutcome, 'status' | 'detail'> {
  const when = `${daysFromNow(expires, now)} (${isoDate(expires)})`;
  if (expires <= now) return { status: 'down', detail: `registration expired ${when}` };
  const left = expires - now;
  const status =
    left <= DOMAIN_DOWN_DAYS * DAY_MS ? 'down' : left <= DOMAIN_DEGRADED_DAYS * DAY_MS ? 'degraded' : 'up';
  return { status, detail: `registration expires ${when}` };
}

/** The RDAP base URL for the longest matching suffix of the name (https preferred). */
export function rdapBase(services: Services, name: string): URL | null {
  const labels = name.split('.');
  for (let i = 0; i < labels.length; i++) {
    const suffix = labels.slice(i).join('.');
    const entry = services.find(([suffixes]) => suffixes.some((s) => s.toLowerCase() === suffix));
    if (!entry) continue;
    const urls = entry[1];
    const chosen = urls.find((u) => u.startsWith('https:')) ?? urls[0];
    if (!chosen) continue;
    try {
      return new URL(chosen.endsWith('/') ? chosen : `${chosen}/`);
    } catch {}
  }
  return null;
}

/** Shared by concurrent runs: the fetch has its own time limit and each run stops waiting at its own. */
function bootstrap(url: string, now: number, signal: AbortSignal): Promise<Services> {
  const cached = bootstraps.get(url);
  if (cached && now - cached.at < BOOTSTRAP_TTL_MS) return untilAborted(cached.services, signal);
  const services = fetchBootstrap(url, AbortSignal.timeout(BOOTSTRAP_FETCH_MS));
  bootstraps.set(url, { at: now, services });
  // A failed fetch is not cached: the next run tries again.
  services.catch(() => {
    if (bootstraps.get(url)?.services === services) bootstraps.delete(url);
  });
  return untilAborted(services, signal);
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

async function fetchBootstrap(url: string, signal: AbortSignal): Promise<Services> {
  const res = await fetch(url, { signal, headers: { accept: 'application/json' } });
  if (!res.ok) {
    await res.body?.cancel();
    throw new Error(`${url} answered ${res.status}`);
  }
  const doc = JSON.parse(await readLimited(res, 4 * MAX_RESPONSE_BYTES)) as { services?: unknown };
  if (!Array.isArray(doc.services)) throw new Error(`${url} is not an RDAP bootstrap file`);
  return doc.services.filter(
    (s): s is [string[], string[]] =>
      Array.isArray(s) &&
      Array.isArray(s[0]) &&
      Array.isArray(s[1]) &&
      [...s[0], ...s[1]].every((v) => typeof v === 'string'),
  );
}

/** The `expiration` event's date of an RDAP domain object, as epoch ms. */
export function expirationOf(doc: unknown): number | null {
  const events = (doc as { events?: unknown })?.events;
  if (!Array.isArray(events)) return null;
  for (const event of events as { eventAction?: unknown; eventDate?: unknown }[]) {
    if (event?.eventAction !== 'expiration' || typeof event.eventDate !== 'string') continue;
    const ms = Date.parse(event.eventDate);
    if (Number.isFinite(ms)) return ms;
  }
  return null;
}

async function readLimited(res: Response, limit: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error(`response larger than ${limit} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function describe(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause;
  if (error instanceof SyntaxError) return 'the answer is not JSON';
  return cause ? networkDetail(cause) : networkDetail(error);
}
