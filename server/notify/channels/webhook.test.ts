import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { Message } from '../message.ts';
import { type Received, webhookAlert, webhookReceiver } from '../testkit.ts';
import { type ChannelTarget, defaultApiBases, type SendInput } from './kind.ts';
import { webhook } from './webhook.ts';

/** The webhook channel against a real loopback receiver that checks signatures with its own code. */

const message: Message = {
  change: 'opened',
  ts: Date.UTC(2026, 10, 23, 14, 5),
  incident: {
    id: '0123456789abcdef',
    title: 'shop: home down',
    service: 'shop',
    services: ['shop', 'db'],
    startedAt: Date.UTC(2026, 10, 23, 14, 5),
    acknowledgedAt: null,
    acknowledgedBy: null,
    resolvedAt: null,
    inMaintenance: false,
  },
  failing: [
    {
      name: 'home',
      service: 'shop',
      host: null,
      detail: 'connection refused',
      since: Date.UTC(2026, 10, 23, 14, 4),
      recoveredAt: null,
      impact: false,
    },
  ],
  alertCount: 1,
  failingCount: 1,
  cause: {
    title: 'deploy v42 of shop',
    score: 0.8,
    evidence: [{ what: 'deploy v42', ts: Date.UTC(2026, 10, 23, 14, 1), by: 'ana', url: null }],
  },
  url: 'https://mon.example.com/incidents/0123456789abcdef',
  by: null,
};

const input = (channel: ChannelTarget, messageId = 'msg_0123456789abcdef01234567'): SendInput => ({
  channel,
  message,
  messageId,
  attempt: 1,
  thread: null,
  bases: defaultApiBases,
  signal: new AbortController().signal,
});

const SECRET = `whsec_${Buffer.from('a signing key of 32 bytes, made!').toString('base64')}`;

test('a signed JSON POST in Standard Webhooks form, with the documented body', async (t) => {
  const receiver = await webhookReceiver({ '/hook': SECRET, '/plain': 'plain secret text' });
  t.after(() => receiver.close());
  const signed = webhookAlert(0, 'ops', `${receiver.url}/hook`, SECRET);
  assert.deepEqual(await webhook.send({ ...input(signed), signal: AbortSignal.timeout(5000) }), { ok: true });
  const [got] = receiver.requests as [Received];
  assert.equal(got.verified, true, 'the receiver verified the signature');
  assert.equal(got.headers['content-type'], 'application/json');
  assert.equal(got.headers['webhook-id'], 'msg_0123456789abcdef01234567');
  assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
  assert.match(String(got.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(got.json, {
    type: 'incident.opened',
    timestamp: message.ts,
    data: {
      summary: 'Incident opened: shop: home down',
      incident: {
        id: '0123456789abcdef',
        title: 'shop: home down',
        service: 'shop',
        services: ['shop', 'db'],
        startedAt: message.incident.startedAt,
        acknowledgedAt: null,
        acknowledgedBy: null,
        resolvedAt: null,
        url: 'https://mon.example.com/incidents/0123456789abcdef',
      },
      failing: message.failing,
      failingCount: 1,
      alertCount: 1,
      cause: message.cause,
    },
  });
  assert.ok(!got.body.includes(SECRET) && !got.body.includes(SECRET.slice(6)), 'no secret in the body');

  // A secret without the whsec_ prefix signs with its own bytes.
  const plain = webhookAlert(1, 'plain', `${receiver.url}/plain`, 'plain secret text');
  assert.deepEqual(await webhook.send(input(plain)), { ok: true });
  assert.equal(receiver.to('/plain')[0]?.verified, true);

  // A signature made with another secret does not verify: the receiver's check is real.
  const wrong = webhookAlert(2, 'wrong', `${receiver.url}/hook`, 'another secret');
  assert.deepEqual(await webhook.send(input(wrong)), { ok: true });
  assert.equal(receiver.to('/hook')[1]?.verified, false);
});

test('without a secret there is no signature header', async (t) => {
  const receiver = await webhookReceiver();
  t.after(() => receiver.close());
  const result = await webhook.send(input(webhookAlert(0, 'ops', `${receiver.url}/hook`)));
  assert.deepEqual(result, { ok: true });
  const [got] = receiver.requests;
  assert.equal(got?.headers['webhook-signature'], undefined);
  assert.ok(got?.headers['webhook-id']);
  assert.ok(got?.headers['webhook-timestamp']);
});

test('other answers: 5xx and 429 are worth retrying (with Retry-After), 4xx is permanent', async (t) => {
  const receiver = await webhookReceiver();
  t.after(() => receiver.close());
  const channel = webhookAlert(0, 'ops', `${receiver.url}/hook`);
  receiver.answer(() => ({ status: 503, body: 'down for maintenance' }));
  assert.deepEqual(await webhook.send(input(channel)), {
    ok: false,
    permanent: false,
    error: 'webhook answered 503: down for maintenance',
  });
  receiver.answer(() => ({ status: 429, headers: { 'retry-after': '120' } }));
  assert.deepEqual(await webhook.send(input(channel)), {
    ok: false,
    permanent: false,
    error: 'webhook answered 429',
    retryAfterMs: 120_000,
  });
  receiver.answer(() => ({ status: 404, body: 'no such hook' }));
  assert.deepEqual(await webhook.send(input(channel)), {
    ok: false,
    permanent: true,
    error: 'webhook answered 404: no such hook',
  });
});

test('a redirect is not followed: a permanent error naming only the host it points to', async (t) => {
  let hits = 0;
  const server = createServer((req, res) => {
    hits++;
    if (req.url === '/hook') res.writeHead(308, { location: 'https://moved.example.com/new?token=abc' });
    else res.writeHead(200);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  const result = await webhook.send(input(webhookAlert(0, 'ops', `http://127.0.0.1:${port}/hook`)));
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.permanent);
  assert.ok(!result.ok && result.error.includes('308') && result.error.includes('moved.example.com'));
  assert.ok(!result.ok && !result.error.includes('token'), 'the path and query are not named');
  assert.equal(hits, 1);
});

test('a private address is refused unless the channel allows it; an unreachable one is retried', async (t) => {
  const receiver = await webhookReceiver();
  t.after(() => receiver.close());
  const closed = { ...webhookAlert(0, 'ops', `${receiver.url}/hook`) };
  const refused = await webhook.send(
    input({ ...closed, settings: { ...closed.settings, allowPrivate: false } }),
  );
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.permanent && /refused 127\.0\.0\.1/.test(refused.error));
  assert.equal(receiver.requests.length, 0);

  // Nothing listens on port 9 of loopback: a network error, worth retrying.
  const down = await webhook.send(input(webhookAlert(0, 'ops', 'http://127.0.0.1:9/hook')));
  assert.ok(!down.ok && !down.permanent && /ECONNREFUSED/.test(down.error));
});
