import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startReceiver } from '../../http/fixtures/receiver.ts';
import { verifyWebhook, webhookAlert } from '../testkit.ts';
import { inputOf, messageOf } from './fixtures/message.ts';
import type { ChannelTarget } from './kind.ts';
import { type WebhookPayload, webhook } from './webhook.ts';

/** The webhook channel against a real loopback receiver that checks signatures with its own code. */

const opened = messageOf('opened');
const message = messageOf('opened', { incident: { ...opened.incident, services: ['api', 'db'] } });
const input = (channel: ChannelTarget, messageId = 'msg_0123456789abcdef01234567') =>
  inputOf(channel, message, { messageId });

const SECRET = `whsec_${Buffer.from('a signing key of 32 bytes, made!').toString('base64')}`;

test('a signed JSON POST in Standard Webhooks form, with the documented body', async (t) => {
  const receiver = await startReceiver<WebhookPayload>();
  t.after(() => receiver.close());
  const signed = webhookAlert(0, 'ops', `${receiver.url}/hook`, SECRET);
  assert.deepEqual(await webhook.send({ ...input(signed), signal: AbortSignal.timeout(5000) }), { ok: true });
  const [got] = receiver.received;
  assert.ok(got && verifyWebhook(SECRET, got), 'the receiver verified the signature');
  assert.equal(got.headers['content-type'], 'application/json');
  assert.equal(got.headers['webhook-id'], 'msg_0123456789abcdef01234567');
  assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 60);
  assert.match(String(got.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
  assert.deepEqual(got.json, {
    type: 'incident.opened',
    timestamp: message.ts,
    data: {
      summary: 'Incident opened: api: login down',
      incident: {
        id: '42',
        title: 'api: login down',
        service: 'api',
        services: ['api', 'db'],
        startedAt: message.incident.startedAt,
        acknowledgedAt: null,
        acknowledgedBy: null,
        resolvedAt: null,
        url: 'https://mon.example.com/incidents/42',
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
  const [signedPlain] = receiver.to('/plain');
  assert.ok(signedPlain && verifyWebhook('plain secret text', signedPlain));

  // A signature made with another secret does not verify: the receiver's check is real.
  const wrong = webhookAlert(2, 'wrong', `${receiver.url}/hook`, 'another secret');
  assert.deepEqual(await webhook.send(input(wrong)), { ok: true });
  const [, signedWrong] = receiver.to('/hook');
  assert.ok(signedWrong && !verifyWebhook(SECRET, signedWrong));
});

test('without a secret there is no signature header', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const result = await webhook.send(input(webhookAlert(0, 'ops', `${receiver.url}/hook`)));
  assert.deepEqual(result, { ok: true });
  const [got] = receiver.received;
  assert.equal(got?.headers['webhook-signature'], undefined);
  assert.ok(got?.headers['webhook-id']);
  assert.ok(got?.headers['webhook-timestamp']);
});

test('other answers: 5xx and 429 are worth retrying (with Retry-After), 4xx is permanent', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const channel = webhookAlert(0, 'ops', `${receiver.url}/hook`);
  receiver.answer = () => ({ status: 503, body: 'down for maintenance' });
  assert.deepEqual(await webhook.send(input(channel)), {
    ok: false,
    permanent: false,
    error: 'webhook answered 503: down for maintenance',
  });
  receiver.answer = () => ({ status: 429, headers: { 'retry-after': '120' } });
  assert.deepEqual(await webhook.send(input(channel)), {
    ok: false,
    permanent: false,
    error: 'webhook answered 429',
    retryAfterMs: 120_000,
  });
  receiver.answer = () => ({ status: 404, body: 'no such hook' });
  assert.deepEqual(await webhook.send(input(channel)), {
    ok: false,
    permanent: true,
    error: 'webhook answered 404: no such hook',
  });
});

test('a redirect is not followed: a permanent error naming only the host it points to', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  receiver.answer = (r) =>
    r.path === '/hook'
      ? { status: 308, headers: { location: 'https://moved.example.com/new?token=abc' } }
      : { status: 200 };
  const result = await webhook.send(input(webhookAlert(0, 'ops', `${receiver.url}/hook`)));
  assert.equal(result.ok, false);
  assert.ok(!result.ok && result.permanent);
  assert.ok(!result.ok && result.error.includes('308') && result.error.includes('moved.example.com'));
  assert.ok(!result.ok && !result.error.includes('token'), 'the path and query are not named');
  assert.equal(receiver.received.length, 1);
});

test('a private address is refused unless the channel allows it; an unreachable one is retried', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const closed = { ...webhookAlert(0, 'ops', `${receiver.url}/hook`) };
  const refused = await webhook.send(
    input({ ...closed, settings: { ...closed.settings, allowPrivate: false } }),
  );
  assert.equal(refused.ok, false);
  assert.ok(!refused.ok && refused.permanent && /refused 127\.0\.0\.1/.test(refused.error));
  assert.equal(receiver.received.length, 0);

  // Nothing listens on port 9 of loopback: a network error, worth retrying.
  const down = await webhook.send(input(webhookAlert(0, 'ops', 'http://127.0.0.1:9/hook')));
  assert.ok(!down.ok && !down.permanent && /ECONNREFUSED/.test(down.error));
});
