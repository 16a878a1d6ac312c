import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { ChannelKind } from '../../protocol/notify.ts';
import type { FakeClock } from '../clock.ts';
import type { FileService } from '../config/core.ts';
import type { LiveConfig } from '../config/service.ts';
import { type Received, startReceiver } from '../http/fixtures/receiver.ts';
import { incidentServer } from '../incidents/testkit.ts';
import { all, int, mapper, nullable, scalar, text } from '../store/rows.ts';
import { within } from '../testing.ts';
import type { WebhookPayload } from './channels/webhook.ts';
import { channelSettings, type FileAlert } from './config.ts';

/**
 * Test helpers of notifications: the check a user's webhook receiver makes of signatures, with its own
 * code (docs/notifications.md), `[[alert]]` channels, and a test server that delivers to a loopback
 * receiver.
 */

/**
 * Verifies a Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * with the secret's key (base64 after `whsec_`, else its bytes), a timestamp within 5 minutes of now.
 */
export function verifyWebhook(secret: string, { headers, body }: Received): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = String(headers['webhook-signature'] ?? '').split(' ');
  if (!id || !Number.isInteger(timestamp)) return false;
  if (Math.abs(Date.now() / 1000 - timestamp) > 5 * 60) return false;
  const key = secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret);
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest();
  return signatures.some((s) => {
    const [version, mac] = s.split(',');
    const given = Buffer.from(mac ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

/** An `[[alert]]` channel of mon.toml as the loader gives it. */
export function fileAlert(
  index: number,
  name: string,
  kind: ChannelKind,
  settings: Partial<FileAlert['settings']>,
): FileAlert {
  return {
    index,
    name,
    kind,
    settings: channelSettings(settings),
  };
}

/** A webhook `[[alert]]` to `url`, private addresses allowed (test receivers are on loopback). */
export const webhookAlert = (index: number, name: string, url: string, secret: string | null = null) =>
  fileAlert(index, name, 'webhook', { url, secret, allowPrivate: true });

const outboxRow = mapper({
  messageId: text,
  incident: text,
  channel: text,
  change: text,
  state: text,
  attempts: int,
  dueAt: nullable(int),
  heldBy: nullable(text),
});

/**
 * An incident test server (incidents/testkit.ts) whose `[[alert]]`s are `alerts(receiverUrl)`, with a
 * webhook receiver, `[server] url` set, and reads of the outbox, the metric and the timeline.
 */
export async function deliveryServer(
  alerts: (receiverUrl: string) => FileAlert[],
  options: {
    services?: FileService[];
    config?: Partial<LiveConfig>;
    clock?: FakeClock;
    dataDir?: string;
  } = {},
) {
  const receiver = await startReceiver<WebhookPayload>();
  const kit = await incidentServer(
    options.services ?? [],
    {
      alerts: alerts(receiver.url),
      server: { url: 'https://mon.example.com', trustedProxies: [] },
      ...options.config,
    },
    {
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    },
  );
  const read = kit.server.deps.store.read;
  return {
    ...kit,
    receiver,
    /** Every outbox row, oldest first. */
    outbox: () => all(read, `SELECT ${columns} FROM outbox ORDER BY id`, outboxRow),
    /**
     * `mon_outbox_due` as /metrics shows it, once it counts the rows due: the gauge may lag a send's
     * commit by a moment (docs/notifications.md); it has 2 s to catch up, else its value is returned.
     */
    async outboxDue(): Promise<number> {
      const due = () => scalar(read, "SELECT count(*) AS n FROM outbox WHERE state = 'due'", int);
      const deadline = Date.now() + 2000;
      for (;;) {
        const res = await kit.inject('GET', '/metrics');
        const m = /^mon_outbox_due (\d+)$/m.exec(res.text);
        assert.ok(m, 'mon_outbox_due is in /metrics');
        if (Number(m[1]) === due() || Date.now() > deadline) return Number(m[1]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** The incident's `notification` timeline rows. */
    async notifications(id: string) {
      return (await kit.read(id)).timeline.filter((r) => r.kind === 'notification');
    },
    /** Waits (real time) for `condition`, which a send over loopback and its commit make true. */
    settled: (what: string, condition: () => boolean) => within(5000, what, condition),
    async dispose() {
      await kit.server.dispose();
      await receiver.close();
    },
  };
}

const columns = 'message_id, incident, channel, change, state, attempts, due_at, held_by';
