import http from 'node:http';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { AgentFrame, FramesAnswer, PollAnswer } from '../protocol/agent.ts';
import {
  AGENT_TIME_HEADER,
  exceededLimit,
  MAX_FRAMES_BYTES,
  MAX_INFLATED_FRAMES_BYTES,
  POLL_WAIT_MS,
} from '../protocol/agent-constants.ts';
import { readPollAnswer, type UnreadableCheck } from './poll-answer.ts';

/**
 * The agent's two requests to the server: `POST /agent/v1/frames` and `GET /agent/v1/poll`
 * (protocol/agent.ts), with the host token as a bearer token. Connections are kept alive. Over HTTPS
 * the server's certificate is always verified: the agent's own `https.Agent` says
 * `rejectUnauthorized: true`, which `NODE_TLS_REJECT_UNAUTHORIZED=0` in the environment cannot turn off,
 * so the token never reaches a server the agent cannot trust (settings.ts decides plain HTTP). Each
 * request carries the agent's clock as it is made (AGENT_TIME_HEADER): the server measures the host's
 * clock against its own with it.
 */
export type Transport = {
  /** Sends one body made by `encodeFrames`. */
  postFrames(body: Buffer): Promise<SendResult>;
  poll(query: PollQuery, signal?: AbortSignal): Promise<PollResult>;
  /** Closes the kept connections. */
  close(): void;
};

export type PollQuery = {
  assignment: string;
  version: string;
  protocol: number;
  capabilities: readonly string[];
};

/** What became of a request, by the server's answer (docs/agent.md, "Sending"). */
export type SendResult =
  /** 200 with mon's answer (`{stored, skipped}`): stored. */
  | { kind: 'stored' }
  /** 400, 413, 422: the batch is bad; sending it again cannot help. */
  | { kind: 'bad'; status: number; detail: string }
  /** 401, 403: the server refused the token. */
  | { kind: 'refused'; status: number }
  /** 429, 503: the server is busy; try again after `retryAfterMs` (its Retry-After), or after the backoff. */
  | { kind: 'busy'; status: number; retryAfterMs: number | null }
  /** No answer (network, timeout), another `status`, or a 200 not from mon: try again after the backoff. */
  | { kind: 'failed'; detail: string; status?: number };

export type PollResult =
  /** `unreadable`: checks of the answer this agent cannot run (a newer server's), left out of `answer`. */
  | { kind: 'answer'; answer: PollAnswer; unreadable: UnreadableCheck[] }
  | Exclude<SendResult, { kind: 'stored' }>;

/** A POST that takes longer than this is given up (its frames are kept). */
const POST_TIMEOUT_MS = 30_000;
/** The poll waits up to POLL_WAIT_MS for the server; this much more for the network. */
const POLL_TIMEOUT_MS = POLL_WAIT_MS + 15_000;
/** Retry-After is honoured up to this long. */
const MAX_RETRY_AFTER_MS = 15 * 60_000;

export function createTransport(options: {
  server: URL;
  token: string;
  /** An extra trusted root (MON_CA), on top of Node's own (NODE_EXTRA_CA_CERTS' included). */
  ca: string | null;
  userAgent: string;
  /** HTTPS_PROXY and NO_PROXY (settings.ts), for an https server only; see `proxySupport`. */
  proxyEnv?: Record<string, string> | null;
}): Transport {
  const secure = options.server.protocol === 'https:';
  // TLS is loaded for an https server only: it costs several MB of memory.
  const client: Promise<{ request: typeof http.request; agent: http.Agent }> = secure
    ? Promise.all([import('node:https'), import('node:tls')]).then(([https, tls]) => ({
        request: https.request,
        agent: new https.Agent({
          keepAlive: true,
          rejectUnauthorized: true,
          ...(options.ca ? { ca: [...defaultRoots(tls), options.ca] } : {}),
          // The token travels inside the TLS tunnel (CONNECT): the proxy sees the server's name only.
          ...(options.proxyEnv ? { proxyEnv: options.proxyEnv } : {}),
        }),
      }))
    : Promise.resolve({ request: http.request, agent: new http.Agent({ keepAlive: true }) });
  const base = options.server.pathname.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${options.token}`, 'user-agent': options.userAgent };

  const exchange = async (
    method: 'GET' | 'POST',
    path: string,
    extra: Record<string, string>,
    body: Buffer | null,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<{ status: number; retryAfter: string | undefined; type: string; text: string }> => {
    const { request: send, agent } = await client;
    return new Promise((resolve, reject) => {
      const request = send(
        {
          protocol: options.server.protocol,
          hostname: options.server.hostname.replace(/^\[|\]$/g, ''),
          port: options.server.port || (secure ? 443 : 80),
          method,
          path: `${base}${path}`,
          agent,
          headers: {
            ...headers,
            [AGENT_TIME_HEADER]: String(Date.now()),
            ...extra,
            ...(body ? { 'content-length': String(body.length) } : {}),
          },
          ...(signal ? { signal } : {}),
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            // An answer is small; a huge one is cut off rather than held.
            size += chunk.length;
            if (size <= 1024 * 1024) chunks.push(chunk);
          });
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: response.headers['retry-after'],
              type: response.headers['content-type'] ?? '',
              text: Buffer.concat(chunks).toString('utf8'),
            }),
          );
          response.on('error', reject);
        },
      );
      const deadline = setTimeout(
        () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
      request.on('close', () => clearTimeout(deadline));
      request.on('error', reject);
      request.end(body ?? undefined);
    });
  };

  return {
    async postFrames(body) {
      try {
        const answer = await exchange(
          'POST',
          '/agent/v1/frames',
          { 'content-type': 'application/json', 'content-encoding': 'gzip' },
          body,
          POST_TIMEOUT_MS,
        );
        if (answer.status !== 200) return failure(answer);
        // A 200 of something else (a proxy's maintenance or login page) did not store the batch.
        const said = jsonOf(answer.text) as Partial<FramesAnswer> | undefined;
        if (typeof said?.stored === 'number') return { kind: 'stored' };
        return {
          kind: 'failed',
          detail: `the server answered 200 without mon's answer (${answer.type.split(';')[0] || 'no content type'})`,
          status: 200,
        };
      } catch (error) {
        return { kind: 'failed', detail: networkText(error) };
      }
    },
    async poll(query, signal) {
      const search = new URLSearchParams({
        assignment: query.assignment,
        version: query.version,
        protocol: String(query.protocol),
        capabilities: query.capabilities.join(','),
      });
      try {
        const answer = await exchange('GET', `/agent/v1/poll?${search}`, {}, null, POLL_TIMEOUT_MS, signal);
        if (answer.status !== 200) return failure(answer);
        const read = readPollAnswer(jsonOf(answer.text));
        if (!read) return { kind: 'failed', detail: 'the poll answer is not one this agent reads' };
        return { kind: 'answer', ...read };
      } catch (error) {
        return { kind: 'failed', detail: networkText(error) };
      }
    },
    close: () => void client.then(({ agent }) => agent.destroy()),
  };
}

/** The result of an answer other than 200. */
export function failure(answer: {
  status: number;
  retryAfter?: string | undefined;
  text: string;
}): Exclude<SendResult, { kind: 'stored' }> {
  const { status } = answer;
  if (status === 400 || status === 413 || status === 422)
    return { kind: 'bad', status, detail: detailOf(answer.text) };
  if (status === 401 || status === 403) return { kind: 'refused', status };
  if (status === 429 || status === 503) {
    return { kind: 'busy', status, retryAfterMs: retryAfterMs(answer.retryAfter, Date.now()) };
  }
  return { kind: 'failed', detail: `the server answered ${status}`, status };
}

/** Retry-After in seconds or as an HTTP date, in ms from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now: number): number | null {
  if (value === undefined || value.trim() === '') return null;
  const text = value.trim();
  const ms = /^\d+$/.test(text) ? Number(text) * 1000 : Date.parse(text) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), MAX_RETRY_AFTER_MS) : null;
}

/** The problem+json `detail` (or `title`) of an answer, for the log. */
function detailOf(text: string): string {
  const body = jsonOf(text) as { detail?: unknown; title?: unknown } | undefined;
  const said =
    typeof body?.detail === 'string' ? body.detail : typeof body?.title === 'string' ? body.title : '';
  return said.slice(0, 300);
}

function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function networkText(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  if (e?.name === 'AbortError') return 'stopped';
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? error);
}

const gzipAsync = promisify(gzip);

/** The most frames one body holds (framesBodySchema). */
const MAX_FRAMES_PER_BODY = 10_000;

/** A frame with its JSON text, written once (the outbox measures it, the body is made of it). */
export type FrameJson = { frame: AgentFrame; json: string };

export function frameJson(frame: AgentFrame): FrameJson {
  return { frame, json: JSON.stringify(frame) };
}

/** `encodeFrameJson` of the frames. */
export function encodeFrames(
  frames: readonly AgentFrame[],
  limits: { maxBytes?: number; maxInflated?: number } = {},
): Promise<{ bodies: Buffer[]; dropped: AgentFrame[] }> {
  return encodeFrameJson(frames.map(frameJson), limits);
}

/**
 * The request bodies of the frames, oldest first: JSON `{batch, frames}` gzipped, each at most
 * MAX_FRAMES_BYTES as sent and MAX_INFLATED_FRAMES_BYTES as JSON, and within what one request may
 * carry (REQUEST_LIMITS); a bigger batch is split in halves until each part fits. A single frame too big to send on its own is left out and named in `dropped`.
 * Each body names its batch with a new random id: the spool keeps the body as it is, so every send of
 * it, after a lost answer or a restart, carries the same id and the server stores it once.
 */
export async function encodeFrameJson(
  frames: readonly FrameJson[],
  limits: { maxBytes?: number; maxInflated?: number } = {},
): Promise<{ bodies: Buffer[]; dropped: AgentFrame[] }> {
  const maxBytes = limits.maxBytes ?? MAX_FRAMES_BYTES;
  const maxInflated = limits.maxInflated ?? MAX_INFLATED_FRAMES_BYTES;
  const bodies: Buffer[] = [];
  const dropped: AgentFrame[] = [];
  const encode = async (part: readonly FrameJson[]): Promise<void> => {
    if (part.length === 0) return;
    const json = `{"batch":"${newBatchId()}","frames":[${part.map((f) => f.json).join(',')}]}`;
    const fits =
      part.length <= MAX_FRAMES_PER_BODY &&
      Buffer.byteLength(json) <= maxInflated &&
      exceededLimit(part.map((f) => f.frame)) === null;
    const body = fits ? await gzipAsync(json) : null;
    if (body && body.length <= maxBytes) {
      bodies.push(body);
      return;
    }
    if (part.length === 1) {
      dropped.push(part[0]!.frame);
      return;
    }
    const half = Math.ceil(part.length / 2);
    await encode(part.slice(0, half));
    await encode(part.slice(half));
  };
  await encode(frames);
  return { bodies, dropped };
}

/**
 * A batch id: the time and 80 random bits, 20 to 28 characters of [0-9a-z] (framesBodySchema: 1 to 64).
 * Math.random, not node:crypto (2 MB more memory for the agent): the id only has to differ from the
 * host's other recent batches, it guards nothing.
 */
export function newBatchId(): string {
  const random = () => Math.floor(Math.random() * 2 ** 40).toString(36);
  return `${Date.now().toString(36)}${random()}${random()}`;
}

/**
 * The roots Node trusts by default: its own and NODE_EXTRA_CA_CERTS' (and the system's with
 * --use-system-ca). A `ca` option replaces them, so MON_CA is added to these. `getCACertificates` is
 * Node 22.15 and later; before, the bundled roots only.
 */
function defaultRoots(tls: typeof import('node:tls')): readonly string[] {
  const get = (tls as { getCACertificates?: (type?: string) => string[] }).getCACertificates;
  return get ? get('default') : tls.rootCertificates;
}

/**
 * Whether this Node's `https.Agent` takes `proxyEnv` (Node 24.5 and later): an agent made with it
 * holds a proxy configuration, an older Node ignores the option.
 */
export async function proxySupport(): Promise<boolean> {
  const https = await import('node:https');
  const probe = new https.Agent({ proxyEnv: { HTTPS_PROXY: 'http://127.0.0.1:9' } } as object);
  return Object.getOwnPropertySymbols(probe).some((symbol) => symbol.description === 'kProxyConfig');
}
