import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';
import type { NotifyChange } from '../../../protocol/notify.ts';
import { outboundRequest } from '../../http/outbound.ts';
import type { ChannelSettings } from '../config.ts';
import type { Message, MessageAlert } from '../message.ts';
import { headline } from '../text.ts';
import { type ChannelImpl, resultOfError, resultOfStatus, type SendResult } from './kind.ts';

/**
 * The webhook channel: a JSON POST to the channel's URL following Standard Webhooks. `webhook-id` is
 * the message's id, the same on every retry, so a receiver drops duplicates by it; with a secret,
 * `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `<id>.<timestamp>.<body>`. Redirects are
 * not followed (a receiver that moved says so in the error). docs/notifications.md documents the body.
 */

/** The body of a webhook request. Times are UTC milliseconds, as everywhere in mon's API. */
export type WebhookPayload = {
  type: `incident.${NotifyChange}` | 'test';
  /** When the change happened. */
  timestamp: number;
  data: {
    /** The message's first line: "Incident opened: shop: home down". */
    summary: string;
    incident: {
      id: string;
      title: string;
      service: string | null;
      services: string[];
      startedAt: number;
      acknowledgedAt: number | null;
      acknowledgedBy: string | null;
      resolvedAt: number | null;
      url: string | null;
    };
    /** The alerts failing at the change (every alert once resolved), oldest first; at most 20. */
    failing: MessageAlert[];
    failingCount: number;
    alertCount: number;
    cause: Message['cause'];
  };
};

export function webhookPayload(m: Message): WebhookPayload {
  const { incident } = m;
  return {
    type: m.change === 'test' ? 'test' : `incident.${m.change}`,
    timestamp: m.ts,
    data: {
      summary: headline(m),
      incident: {
        id: incident.id,
        title: incident.title,
        service: incident.service,
        services: incident.services,
        startedAt: incident.startedAt,
        acknowledgedAt: incident.acknowledgedAt,
        acknowledgedBy: incident.acknowledgedBy,
        resolvedAt: incident.resolvedAt,
        url: m.url,
      },
      failing: m.failing,
      failingCount: m.failingCount,
      alertCount: m.alertCount,
      cause: m.cause,
    },
  };
}

/** The HMAC key of a signing secret: the bytes after `whsec_` in base64, else the secret's own bytes. */
export function signingKey(secret: string): KeyObject {
  return createSecretKey(
    secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8'),
  );
}

/** Each channel's key, made once per loaded settings: making a key costs more than signing with it. */
const keys = new WeakMap<ChannelSettings, { secret: string; key: KeyObject }>();

function keyOf(settings: ChannelSettings, secret: string): KeyObject {
  let made = keys.get(settings);
  if (made?.secret !== secret) {
    made = { secret, key: signingKey(secret) };
    keys.set(settings, made);
  }
  return made.key;
}

/** The `webhook-signature` value of a request. */
export function webhookSignature(key: KeyObject, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

export const webhook: ChannelImpl = {
  async send({ channel, message, messageId, signal }): Promise<SendResult> {
    const { settings } = channel;
    const { url, secret, allowPrivate } = settings;
    if (!url) return { ok: false, permanent: true, error: 'the channel has no URL' };
    const body = JSON.stringify(webhookPayload(message));
    // The wall clock, not mon's clock: receivers compare it with theirs to refuse replays.
    const timestamp = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'webhook-id': messageId,
      'webhook-timestamp': String(timestamp),
    };
    if (secret)
      headers['webhook-signature'] = webhookSignature(keyOf(settings, secret), messageId, timestamp, body);
    try {
      const res = await outboundRequest({ url, method: 'POST', headers, body, allowPrivate, signal });
      if (res.status >= 300 && res.status < 400) return redirected(res.status, res.headers.location, url);
      return resultOfStatus('webhook', res.status, res.body, res.headers['retry-after']);
    } catch (error) {
      return resultOfError(error);
    }
  },
};

/** A 3xx: permanent, naming only the host it points to (a path or query may hold a token). */
function redirected(status: number, location: string | undefined, url: string): SendResult {
  let to = 'without a Location';
  try {
    if (location) to = `to ${new URL(location, url).host}`;
  } catch {
    to = 'to an address that is not a URL';
  }
  return {
    ok: false,
    permanent: true,
    error: `webhook answered ${status}, a redirect ${to}; redirects are not followed: update the channel's URL`,
  };
}
