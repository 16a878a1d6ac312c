import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChannelBody, ChannelTestResult } from '../../protocol/notify.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { memoryLog, within } from '../testing.ts';
import { channelServer } from './channel-testkit.ts';
import type { WebhookPayload } from './channels/webhook.ts';

/**
 * `POST /api/v1/channels/{name}/test` against real loopback receivers: the test message goes through
 * the kind's own `send`, with its private-address refusal; one test at a time.
 */

test('the test button sends a test message to a panel channel and to a file channel', async (t) => {
  const receiver = await startReceiver<WebhookPayload>();
  t.after(() => receiver.close());
  const s = await channelServer(
    `[server]\nurl = "https://mon.example.com"\n\n[[alert]]\nname = "file-hook"\ntype = "webhook"\nurl = "${receiver.url}/hook?from=file"\nallow_private = true\n`,
  );
  t.after(() => s.dispose());
  const url = `${receiver.url}/hook`;
  const hook: ChannelBody = { name: 'hook', kind: 'webhook', url, allowPrivate: true };
  assert.equal((await s.call('write', 'POST', '/api/v1/channels', hook)).status, 201);

  // With [server] url set, a browser's write must come from it: a token is simpler here.
  const res = await s.call('write', 'POST', '/api/v1/channels/hook/test');
  assert.equal(res.status, 200);
  const result = res.body as ChannelTestResult;
  assert.deepEqual(
    { ...result, latencyMs: 0 },
    { delivered: true, error: null, permanent: false, latencyMs: 0 },
  );
  assert.ok(Number.isInteger(result.latencyMs) && result.latencyMs >= 0);
  assert.equal(receiver.received.length, 1);
  const [first] = receiver.received;
  assert.equal(first?.method, 'POST');
  const payload = first!.json;
  assert.equal(payload.type, 'test');
  assert.match(payload.data.incident.title, /^Test message from mon/);
  assert.equal(payload.data.incident.url, 'https://mon.example.com/settings/channels');
  assert.equal(payload.timestamp, s.clock.now());

  const file = await s.call('write', 'POST', '/api/v1/channels/file-hook/test');
  assert.equal(file.status, 200);
  assert.equal((file.body as ChannelTestResult).delivered, true);
  assert.equal(receiver.received[1]?.url, '/hook?from=file');

  assert.equal((await s.call('write', 'POST', '/api/v1/channels/nobody/test')).status, 404);
});

test('a private address is refused unless the channel allows it; the receiver gets nothing', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const s = await channelServer();
  t.after(() => s.dispose());
  const hook: ChannelBody = {
    name: 'hook',
    kind: 'webhook',
    url: `${receiver.url}/hook`,
    allowPrivate: false,
  };
  await s.call('write', 'POST', '/api/v1/channels', hook);
  const result = (await s.call('write', 'POST', '/api/v1/channels/hook/test')).body as ChannelTestResult;
  assert.equal(result.delivered, false);
  assert.equal(result.permanent, true);
  assert.match(
    result.error ?? '',
    /^refused 127\.0\.0\.1: .*private addresses are not allowed for this channel/,
  );
  assert.equal(receiver.received.length, 0);
});

test('a receiver that refuses: its status and answer, never the secret; the log holds no secret', async (t) => {
  const secret = 'whsec-signing-secret-value';
  // A receiver that says back what it was given, secret included.
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  receiver.answer = () => ({ status: 401, body: `bad signature for key ${secret}` });
  const memory = memoryLog();
  const s = await channelServer('', { log: memory.log });
  t.after(() => s.dispose());
  const url = `${receiver.url}/hook`;
  const hook: ChannelBody = { name: 'hook', kind: 'webhook', url, secret, allowPrivate: true };
  await s.call('write', 'POST', '/api/v1/channels', hook);
  const res = await s.call('write', 'POST', '/api/v1/channels/hook/test');
  const result = res.body as ChannelTestResult;
  assert.equal(result.delivered, false);
  assert.equal(result.permanent, true);
  assert.equal(result.error, 'webhook answered 401: bad signature for key [secret]');
  assert.ok(!JSON.stringify(res.body).includes(secret));
  assert.match(memory.text(), /"message":"channel test"/);
  assert.ok(!memory.text().includes(secret));
});

test('one test at a time: a second while one is waiting for its receiver gets 429 with Retry-After', async (t) => {
  const receiver = await startReceiver();
  t.after(() => receiver.close());
  const s = await channelServer();
  t.after(() => s.dispose());
  await s.call('write', 'POST', '/api/v1/channels', {
    name: 'hook',
    kind: 'webhook',
    url: `${receiver.url}/hook`,
    allowPrivate: true,
  } satisfies ChannelBody);
  const release = receiver.hold();
  const first = s.call('write', 'POST', '/api/v1/channels/hook/test');
  await within(5000, 'the first test reaches the receiver', () => receiver.received.length === 1);

  const second = await s.call('admin', 'POST', '/api/v1/channels/hook/test');
  assert.equal(second.status, 429);
  assert.equal(second.headers['content-type'], 'application/problem+json; charset=utf-8');
  const retryAfter = Number(second.headers['retry-after']);
  assert.ok(retryAfter >= 1 && retryAfter <= 15, `Retry-After ${second.headers['retry-after']}`);
  assert.match(second.body.detail, /another channel test is running/);
  assert.equal(receiver.received.length, 1, 'the second sent nothing');

  release();
  assert.equal(((await first).body as ChannelTestResult).delivered, true);
  const third = await s.call('write', 'POST', '/api/v1/channels/hook/test');
  assert.equal(third.status, 200, 'free again once the first is done');
  assert.equal(receiver.received.length, 2);
});
