import type { ChannelKind } from '../../../protocol/notify.ts';
import { OutboundRefused, outboundRequest } from '../../http/outbound.ts';
import type { ChannelSettings } from '../config.ts';
import type { Message } from '../message.ts';
import { hideSecrets, secretsOf } from '../secrets.ts';

/**
 * What a channel kind is: one file per kind (`channels/<kind>.ts`), registered in the exhaustive
 * table of `channels/index.ts`. A kind renders the message in its platform's native format, within
 * the platform's limits, and sends it through `outboundRequest` (server/http/outbound.ts), which
 * refuses private addresses unless allowed. `send` never throws: every failure is a SendResult.
 */
export type ChannelImpl = {
  /**
   * Sends one message. A kind that edits or answers its first message (Discord and Telegram edit it,
   * email answers it) returns the ref to keep as `thread`, which later sends of the incident get back.
   */
  send(input: SendInput): Promise<SendResult>;
};

/** A channel as delivery sees it: file or panel, with its secret. */
export type ChannelTarget = { name: string; kind: ChannelKind; settings: ChannelSettings };

export type SendInput = {
  channel: ChannelTarget;
  message: Message;
  /** Stable across retries of this message (the webhook channel's `webhook-id`). */
  messageId: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The ref an earlier send of this incident to this channel answered (to edit or reply to), or null. */
  thread: string | null;
  /** The platforms' API addresses (tests point them at loopback receivers). */
  bases: ApiBases;
  /** Tests only: DNS servers that resolve the channels' names (NotifyOptions `dnsServers`). */
  dnsServers?: string[] | undefined;
  /** Certificates (PEM) trusted besides the system's for SMTP: tests' own CA; production never sets them. */
  extraCa?: string[] | undefined;
  /** Tests only: how long an email send may take in all (email.ts `SMTP_DEADLINE_MS` otherwise). */
  smtpDeadlineMs?: number | undefined;
  signal: AbortSignal;
};

/**
 * How sends reach the platforms: the API bases, and for tests only DNS servers and extra roots. Built
 * once by the notify feature from its options; the sender and the test button hand it to every send.
 */
export type Reach = Pick<SendInput, 'bases' | 'dnsServers' | 'extraCa'>;

export type SendResult =
  | { ok: true; thread?: string | undefined }
  | {
      ok: false;
      /** Retrying cannot help: a 4xx other than 408 and 429, a refused address, a bad setting. */
      permanent: boolean;
      /** In words, for the timeline and the test button: "Slack answered 404: no_service". */
      error: string;
      /** The receiver asked to wait this long (Retry-After). */
      retryAfterMs?: number | undefined;
    };

/**
 * Base addresses of the platforms' APIs. Tests give loopback receivers here (createTestServer's
 * `notify.bases`); a Slack or Discord URL, or the Telegram API, under a base given that way may be
 * reached on a private address. Production never sets them.
 */
export type ApiBases = { slack: string; discord: string; telegram: string };
export const defaultApiBases: ApiBases = {
  slack: 'https://hooks.slack.com',
  discord: 'https://discord.com',
  telegram: 'https://api.telegram.org',
};

/**
 * Whether `url` may reach a private address: only when it lies under the base a test gave for
 * `platform` (a loopback receiver); the real platforms are public, so production never allows it. A
 * URL that only starts with the same characters (another port, `base` + "evil.example") is not under it.
 */
export function privateAllowedUnder(url: string, platform: keyof ApiBases, bases: ApiBases): boolean {
  const base = bases[platform];
  if (base === defaultApiBases[platform]) return false;
  try {
    const target = new URL(url);
    const root = new URL(base);
    const path = root.pathname.endsWith('/') ? root.pathname : `${root.pathname}/`;
    return (
      target.origin === root.origin && (target.pathname === root.pathname || target.pathname.startsWith(path))
    );
  } catch {
    return false;
  }
}

/** A JSON request to a platform's API (Discord, Telegram): a private address only under a base tests gave. */
export function platformRequest(
  input: SendInput,
  platform: keyof ApiBases,
  request: { url: string; method: 'POST' | 'PATCH'; body: string },
) {
  return outboundRequest({
    ...request,
    headers: { 'content-type': 'application/json' },
    allowPrivate: privateAllowedUnder(request.url, platform, input.bases),
    signal: input.signal,
  });
}

/**
 * The JSON object of a platform's answer, its fields unchecked (`T` declares them all optional and
 * `unknown`), or `{}` when the body holds none (an HTML error page, nothing).
 */
export function answerObject<T extends object>(body: string): T {
  try {
    const parsed: unknown = JSON.parse(body);
    return parsed && typeof parsed === 'object' ? (parsed as T) : ({} as T);
  } catch {
    return {} as T;
  }
}

/** The result of an HTTP answer: 2xx sent; 408, 429 and 5xx worth retrying; other statuses permanent. */
export function resultOfStatus(
  platform: string,
  status: number,
  body: string,
  retryAfter?: string | string[] | undefined,
): SendResult {
  if (status >= 200 && status < 300) return { ok: true };
  const said = body.trim().replace(/\s+/g, ' ').slice(0, 200);
  const error = `${platform} answered ${status}${said ? `: ${said}` : ''}`;
  const transient = status === 408 || status === 429 || status >= 500;
  const wait = retryAfterMs(retryAfter);
  return { ok: false, permanent: !transient, error, ...(wait !== undefined ? { retryAfterMs: wait } : {}) };
}

/** A `Retry-After` header (seconds or an HTTP date) in ms, or undefined. */
export function retryAfterMs(header: string | string[] | undefined, now = Date.now()): number | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The result of an exception: a refused address or a URL that is not one is permanent, a network error
 * is worth retrying.
 */
export function resultOfError(error: unknown): SendResult {
  if (error instanceof OutboundRefused)
    return {
      ok: false,
      permanent: true,
      error: error.privateAddress
        ? `${error.refusal}; private addresses are not allowed for this channel`
        : error.message,
    };
  const e = error as NodeJS.ErrnoException;
  // Node's message does not quote the URL (which may hold a secret); this one does not either.
  if (e?.code === 'ERR_INVALID_URL') return { ok: false, permanent: true, error: 'the URL is not valid' };
  return { ok: false, permanent: false, error: e?.message ?? String(error) };
}

/**
 * `result` with every secret of `channel` in its error hidden (server/notify/secrets.ts): a platform's
 * answer or a network error may quote the URL, the token or the password.
 */
export function withoutSecrets(result: SendResult, channel: ChannelTarget): SendResult {
  if (result.ok) return result;
  return { ...result, error: hideSecrets(result.error, secretsOf(channel)) };
}
