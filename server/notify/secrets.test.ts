import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChannelTestResult } from '../../protocol/notify.ts';
import type { ChannelTarget } from './channels/kind.ts';
import { hideSecrets, holdsUserInfo, sameOrigin, secretsOf } from './secrets.ts';
import { deliveryServer, fileAlert, webhookAlert } from './testkit.ts';

/** Which values of a channel are secret, how errors hide them, and where a stored one may go. */

const channel = (kind: ChannelTarget['kind'], settings: Partial<ChannelTarget['settings']>): ChannelTarget =>
  fileAlert(0, 'c', kind, settings);

test('secretsOf: the secret of every kind; for Slack and Discord the URL, its path and its token', () => {
  assert.deepEqual(secretsOf(channel('ntfy', { url: 'https://ntfy.example/t', secret: 'tk_1' })), ['tk_1']);
  assert.deepEqual(secretsOf(channel('email', { smtp: 'm.example:587', secret: 'pw' })), ['pw']);
  assert.deepEqual(secretsOf(channel('webhook', { url: 'https://h.example/x' })), []);
  const slack = 'https://hooks.slack.com/services/T1/B2/tok3n';
  assert.deepEqual(secretsOf(channel('slack', { url: slack })), [slack, '/services/T1/B2/tok3n', 'tok3n']);
  const discord = 'https://discord.com/api/webhooks/123/abc-def';
  assert.deepEqual(secretsOf(channel('discord', { url: discord })), [
    discord,
    '/api/webhooks/123/abc-def',
    'abc-def',
  ]);
});

test('hideSecrets: every secret however short, URL-encoded too, a whole URL before its token, in one pass', () => {
  assert.equal(hideSecrets('bad key k3y9 (k3y9)', ['k3y9']), 'bad key [secret] ([secret])');
  assert.equal(
    hideSecrets('GET /bot123%3AAbC/sendMessage and 123:AbC', ['123:AbC']),
    'GET /bot[secret]/sendMessage and [secret]',
  );
  const url = 'https://hooks.slack.com/services/T1/B2/tok3n';
  assert.equal(
    hideSecrets(`no_service at ${url}, token tok3n`, secretsOf(channel('slack', { url }))),
    'no_service at [secret], token [secret]',
  );
  // A secret inside the mark is not marked again; special characters are literal.
  assert.equal(hideSecrets('a.b+c secret', ['a.b+c', 'secret']), '[secret] [secret]');
  assert.equal(hideSecrets('nothing to hide', [null, '', undefined]), 'nothing to hide');
});

test('sameOrigin and holdsUserInfo', () => {
  assert.equal(sameOrigin('https://a.example/x', 'https://a.example:443/y?z'), true);
  assert.equal(sameOrigin('https://a.example/x', 'http://a.example/x'), false);
  assert.equal(sameOrigin('https://a.example/x', 'https://a.example:8443/x'), false);
  assert.equal(sameOrigin('https://a.example/x', 'https://b.example/x'), false);
  assert.equal(sameOrigin(null, 'https://a.example/x'), false);
  assert.equal(holdsUserInfo('https://me:pw@a.example/'), true);
  assert.equal(holdsUserInfo('https://me@a.example/'), true);
  assert.equal(holdsUserInfo('https://a.example/me:pw@x'), false);
});

test('a short secret a receiver says back is hidden on the timeline, in the deliveries and in the test result', async (t) => {
  const secret = 'k3y9';
  const kit = await deliveryServer((url) => [webhookAlert(0, 'ops', `${url}/ops`, secret)]);
  t.after(() => kit.dispose());
  // A receiver that quotes the key it expected.
  kit.receiver.answer = () => ({ status: 401, body: `bad signature, expected key ${secret}` });
  await kit.fail(await kit.check('home', 'shop'));
  await kit.settled('the attempt is recorded', () => kit.outbox()[0]?.state === 'failed');
  const [incident] = await kit.list();
  const read = await kit.read(incident!.id);
  const [row] = await kit.notifications(incident!.id);
  assert.equal(
    row?.title,
    'ops (webhook) failed: webhook answered 401: bad signature, expected key [secret]; not retried',
  );
  assert.equal(read.deliveries[0]?.lastError, 'webhook answered 401: bad signature, expected key [secret]');
  assert.ok(!JSON.stringify(read).includes(secret));

  const tested = await kit.inject('POST', '/api/v1/channels/ops/test');
  assert.equal(tested.status, 200, tested.text);
  const result = JSON.parse(tested.text) as ChannelTestResult;
  assert.equal(result.error, 'webhook answered 401: bad signature, expected key [secret]');
});
