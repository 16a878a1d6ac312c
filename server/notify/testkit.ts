import assert from 'node:assert/strict';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelKind } from '../../protocol/notify.ts';
import type { FakeClock } from '../clock.ts';
import type { FileService } from '../config/core.ts';
import type { LiveConfig } from '../config/service.ts';
import { incidentServer } from '../incidents/testkit.ts';
import { all, int, mapper, nullable, text } from '../store/rows.ts';
import { within } from '../testing.ts';
import type { WebhookPayload } from './channels/webhook.ts';
import type { FileAlert } from './config.ts';

/**
 * Test helpers of notifications: a real loopback receiver of webhook requests that checks signatures
 * with its own code (as a user's receiver would, docs/notifications.md), and `[[alert]]` channels.
 */

/** A request the receiver got. `verified`: its signature checked out (null: no secret to check it with). */
export type Received = {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body (webhook requests are JSON). */
  json: WebhookPayload;
  /** When it arrived (wall clock, ms). */
  at: number;
  verified: boolean | null;
};

export type Answer = { status: number; headers?: Record<string, string>; body?: string };

/**
 * Verifies a Standard Webhooks signature: `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * with the secret's key (base64 after `whsec_`, else its bytes), a timestamp within 5 minutes of now.
 */
export function verifyWebhook(secret: string, headers: IncomingHttpHeaders, body: string): boolean {
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

/**
 * A webhook receiver on loopback. `answer` decides each reply (200 by default) and may wait (a
 * request held in flight); `secrets` by path verify signatures.
 */
export async function webhookReceiver(secrets: Record<string, string> = {}) {
  const requests: Received[] = [];
  const state = {
    answer: (_r: Received, _n: number): Answer | Promise<Answer> => ({ status: 200 }),
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const path = req.url ?? '/';
      const secret = secrets[path];
      const received: Received = {
        path,
        headers: req.headers,
        body,
        json: JSON.parse(body) as WebhookPayload,
        at: Date.now(),
        verified: secret === undefined ? null : verifyWebhook(secret, req.headers, body),
      };
      requests.push(received);
      void Promise.resolve(state.answer(received, requests.length)).then((a) => {
        if (res.destroyed) return;
        res.writeHead(a.status, a.headers);
        res.end(a.body ?? '');
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    /** Sets how the receiver answers from now on. */
    answer(fn: (r: Received, n: number) => Answer | Promise<Answer>) {
      state.answer = fn;
    },
    /** Requests to `path`. */
    to: (path: string) => requests.filter((r) => r.path === path),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type Receiver = Awaited<ReturnType<typeof webhookReceiver>>;

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
    settings: {
      url: null,
      secret: null,
      chatId: null,
      smtp: null,
      tls: null,
      username: null,
      from: null,
      to: [],
      allowPrivate: false,
      ...settings,
    },
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
    secrets?: Record<string, string>;
    services?: FileService[];
    config?: Partial<LiveConfig>;
    clock?: FakeClock;
    dataDir?: string;
  } = {},
) {
  const receiver = await webhookReceiver(options.secrets);
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
    /** `mon_outbox_due` as /metrics shows it. */
    async outboxDue(): Promise<number> {
      const res = await kit.inject('GET', '/metrics');
      const m = /^mon_outbox_due (\d+)$/m.exec(res.text);
      assert.ok(m, 'mon_outbox_due is in /metrics');
      return Number(m[1]);
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
