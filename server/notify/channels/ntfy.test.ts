import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { closedPort } from '../../../runners/fixtures/context.ts';
import { type Receiver, startReceiver } from '../../http/fixtures/receiver.ts';
import { startScriptedDns } from '../../http/fixtures/scripted-dns.ts';
import { type ChannelSettings, channelSettings } from '../config.ts';
import type { Message } from '../message.ts';
import { clipBytes, headline } from '../text.ts';
import { alertOf, inputOf, manyAlerts, messageOf } from './fixtures/message.ts';
import { headerText, ntfy, ntfyMessageBytes } from './ntfy.ts';

/** RFC 2047 encoded-words as ntfy decodes them; each word must hold whole UTF-8 characters. */
function decodeWords(value: string): string {
  const word = /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/;
  if (!value.startsWith('=?')) return value;
  return value
    .split(' ')
    .map((w) => {
      assert.ok(w.length <= 75, `an encoded-word of ${w.length} characters`);
      const base64 = word.exec(w)?.[1];
      assert.ok(base64 !== undefined, `not an encoded-word: ${w}`);
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
    })
    .join('');
}

const utf8 = (bytes: Buffer) => new TextDecoder('utf-8', { fatal: true }).decode(bytes);

describe('ntfy channel', () => {
  let topic: Receiver;
  before(async () => {
    topic = await startReceiver();
  });
  after(() => topic.close());

  const send = async (message: Message, extra: Partial<ChannelSettings> = {}) => {
    topic.received.length = 0;
    const channel = {
      name: 'phone',
      kind: 'ntfy' as const,
      settings: channelSettings({ url: `${topic.url}/mon-alerts`, allowPrivate: true, ...extra }),
    };
    return ntfy.send(inputOf(channel, message));
  };

  test('each change is a POST to the topic with its title, priority, tags and link', async () => {
    const expected = {
      opened: ['high', 'rotating_light'],
      reminder: ['urgent', 'alarm_clock'],
      acknowledged: ['low', 'eyes'],
      resolved: ['default', 'white_check_mark'],
      test: ['default', 'test_tube'],
    } as const;
    for (const [change, [priority, tags]] of Object.entries(expected)) {
      const message = messageOf(change as Message['change']);
      assert.deepEqual(await send(message), { ok: true });
      const [got] = topic.received;
      assert.ok(got, change);
      assert.equal(got.method, 'POST');
      assert.equal(got.url, '/mon-alerts');
      assert.equal(got.headers['content-type'], 'text/plain; charset=utf-8');
      assert.equal(got.headers['x-title'], headline(message), change);
      assert.equal(got.headers['x-priority'], priority, change);
      assert.equal(got.headers['x-tags'], tags, change);
      assert.equal(got.headers['x-click'], 'https://mon.example.com/incidents/42');
      assert.equal(got.headers.authorization, undefined, 'no token, no Authorization');
      const body = utf8(got.bytes);
      assert.ok(!body.includes(headline(message)), 'the headline is the title, not repeated');
      assert.ok(body.endsWith('\nhttps://mon.example.com/incidents/42'), change);
    }
  });

  test('the body says the state, what fails and the likely cause', async () => {
    await send(messageOf('opened'));
    assert.equal(
      utf8(topic.received[0]!.bytes),
      [
        'Open since 2026-11-23 14:05 UTC (0 s)',
        '',
        '- login (api) failing since 2026-11-23 14:05 UTC: connection refused',
        '',
        'Likely cause: deploy v42 of api',
        '  deploy v42 by ana at 2026-11-23 14:01 UTC (https://ci.example/42)',
        '',
        'https://mon.example.com/incidents/42',
      ].join('\n'),
    );
    await send(messageOf('resolved', { cause: null }));
    const resolved = utf8(topic.received[0]!.bytes);
    assert.match(resolved, /^Resolved at 2026-11-23 14:30 UTC after 25 min\n/);
    assert.match(resolved, /recovered at 2026-11-23 14:30 UTC/);
    assert.match(resolved, /No likely cause found\./);
  });

  test('an alert names the host its check runs on; a container alert already does', async () => {
    const alerts = [
      alertOf({ name: 'queue-depth', service: 'shop', host: 'web-1' }),
      alertOf({ name: 'api-1 on web-1', service: 'shop', host: 'web-1', impact: true }),
      alertOf({ name: 'web-1 CPU', service: null, host: 'web-1' }),
    ];
    await send(messageOf('opened', { failing: alerts, failingCount: 3, alertCount: 3 }));
    const lines = utf8(topic.received[0]!.bytes).split('\n');
    assert.ok(
      lines.includes('- queue-depth (shop, on web-1) failing since 2026-11-23 14:05 UTC: connection refused'),
    );
    assert.ok(
      lines.includes(
        '- api-1 on web-1 (shop, impact) failing since 2026-11-23 14:05 UTC: connection refused',
      ),
    );
    assert.ok(lines.includes('- web-1 CPU (web-1) failing since 2026-11-23 14:05 UTC: connection refused'));
  });

  test('an incident without a panel URL sends no link', async () => {
    await send(messageOf('opened', { url: null }));
    assert.equal(topic.received[0]!.headers['x-click'], undefined);
  });

  test('non-ASCII titles travel as RFC 2047 encoded-words and come back whole', async () => {
    const title = 'Café: paiement échoué 🔥🚨 — 支付失败 '.repeat(6).trim();
    const message = messageOf('opened', { incident: { ...messageOf('opened').incident, title } });
    assert.deepEqual(await send(message), { ok: true });
    const header = String(topic.received[0]!.headers['x-title']);
    assert.match(header, /^[\x20-\x7e]+$/, 'the header itself is ASCII');
    assert.ok(header.split(' ').length > 1, 'a long title takes several words');
    assert.equal(decodeWords(header), headline(message));

    // ASCII passes as written; text that looks like an encoded-word is encoded so it shows as written.
    assert.equal(headerText('api: login down'), 'api: login down');
    const lookalike = 'deploy =?UTF-8?B?aGk=?= failed';
    assert.notEqual(headerText(lookalike), lookalike);
    assert.equal(decodeWords(headerText(lookalike)), lookalike);
    assert.equal(decodeWords(headerText('line\nbreak')), 'line\nbreak', 'control characters are encoded');
  });

  test('long names, long details and many alerts stay within 4,096 bytes', async () => {
    const message = messageOf('opened', manyAlerts(60));
    message.failing[0] = alertOf({ name: 'c'.repeat(300), detail: 'x'.repeat(10_000) });
    assert.deepEqual(await send(message), { ok: true });
    const body = topic.received[0]!.bytes;
    assert.ok(body.length <= ntfyMessageBytes, `${body.length} bytes`);
    const text = utf8(body);
    assert.match(text, /^- c{20,}.*…$/m, 'the long alert is cut to a line');
    assert.match(text, /^- and 50 more$/m);
    assert.match(text, /Likely cause: deploy v42 of api/, 'the cause still fits');

    // Details in several-byte characters: cut by bytes, on a character boundary.
    const wide = messageOf('opened', {
      failing: Array.from({ length: 10 }, (_, i) => alertOf({ name: `é${i}`, detail: '🔥é'.repeat(400) })),
    });
    await send(wide);
    const wideBody = topic.received[0]!.bytes;
    assert.ok(wideBody.length <= ntfyMessageBytes, `${wideBody.length} bytes`);
    assert.ok(wideBody.length > ntfyMessageBytes - 8, 'the limit is used, not wasted');
    assert.ok(utf8(wideBody).endsWith('…'), 'cut, and valid UTF-8 to its end');
  });

  test('clipBytes never splits a character', () => {
    assert.equal(clipBytes('short', 10), 'short');
    for (const text of ['aé'.repeat(50), '🔥'.repeat(50), 'a🔥b€c'.repeat(20)]) {
      for (let max = 3; max <= 40; max++) {
        const cut = clipBytes(text, max);
        const bytes = Buffer.from(cut);
        assert.ok(bytes.length <= max, `${bytes.length} > ${max}`);
        assert.equal(utf8(bytes), cut);
        assert.ok(cut.endsWith('…'));
        assert.ok(text.startsWith(cut.slice(0, -1)));
      }
    }
  });

  test('the access token is sent as a Bearer token and never appears in an error', async () => {
    const token = 'tk_0123456789abcdefghijklmnopq';
    assert.deepEqual(await send(messageOf('opened'), { secret: token }), { ok: true });
    assert.equal(topic.received[0]!.headers.authorization, `Bearer ${token}`);

    // A receiver that quotes what it got: the token is hidden in the error all the same.
    topic.answer = (request) => ({
      status: 401,
      body: `{"error":"unauthorized","got":"${request.headers.authorization}"}`,
    });
    try {
      const result = await send(messageOf('opened'), { secret: token });
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.permanent);
      assert.ok(!result.ok && !result.error.includes(token), !result.ok ? result.error : '');
      assert.ok(!result.ok && result.error.startsWith('ntfy answered 401: '), !result.ok ? result.error : '');
      assert.ok(!result.ok && result.error.includes('Bearer [secret]'));
    } finally {
      topic.answer = () => ({ status: 200, body: 'ok' });
    }

    const unfit = await send(messageOf('opened'), { secret: 'tk_with a space' });
    assert.deepEqual(unfit, {
      ok: false,
      permanent: true,
      error: 'the access token holds characters a header cannot carry',
    });
    assert.equal(topic.received.length, 0);
  });

  test('answers map to sent, retry later (with Retry-After) or give up', async () => {
    const cases: [number, string, { permanent: boolean; retryAfterMs?: number }][] = [
      [429, '{"code":42901,"error":"limit reached"}', { permanent: false, retryAfterMs: 30_000 }],
      [500, 'internal error', { permanent: false }],
      [507, '{"error":"insufficient storage"}', { permanent: false }],
      [400, '{"code":40001,"error":"invalid request"}', { permanent: true }],
      [403, '{"code":40301,"error":"forbidden"}', { permanent: true }],
      [404, '{"code":40401,"error":"page not found"}', { permanent: true }],
      [413, '{"code":41301,"error":"attachment too large"}', { permanent: true }],
    ];
    try {
      for (const [status, body, expected] of cases) {
        topic.answer = () => ({
          status,
          body,
          headers: status === 429 ? { 'retry-after': '30' } : undefined,
        });
        const result = await send(messageOf('opened'));
        assert.deepEqual(
          result,
          { ok: false, error: `ntfy answered ${status}: ${body}`, ...expected },
          String(status),
        );
      }
    } finally {
      topic.answer = () => ({ status: 200, body: 'ok' });
    }
  });

  test('a private topic address is refused unless the channel allows private addresses', async () => {
    const result = await send(messageOf('opened'), { allowPrivate: false });
    assert.deepEqual(result, {
      ok: false,
      permanent: true,
      error: 'refused 127.0.0.1: a loopback address; private addresses are not allowed for this channel',
    });
    assert.equal(topic.received.length, 0, 'nothing was sent');
  });

  test('a topic host is resolved by the given DNS servers, and refused when it resolves to a private address', async () => {
    const dns = await startScriptedDns((name, type) =>
      name === 'ntfy.test' && type === 'A' ? ['127.0.0.1'] : [],
    );
    try {
      const url = `http://ntfy.test:${new URL(topic.url).port}/mon-alerts`;
      const input = (allowPrivate: boolean) => ({
        ...inputOf(
          { name: 'phone', kind: 'ntfy', settings: channelSettings({ url, allowPrivate }) },
          messageOf('opened'),
        ),
        dnsServers: [dns.server],
      });
      topic.received.length = 0;
      assert.deepEqual(await ntfy.send(input(true)), { ok: true });
      assert.equal(topic.received[0]?.headers.host, `ntfy.test:${new URL(topic.url).port}`);
      assert.deepEqual(await ntfy.send(input(false)), {
        ok: false,
        permanent: true,
        error:
          'refused ntfy.test (127.0.0.1): a loopback address; private addresses are not allowed for this channel',
      });
      assert.equal(topic.received.length, 1);
    } finally {
      await dns.close();
    }
  });

  test('a topic nobody answers at is worth retrying; a channel without a URL is not', async () => {
    const port = await closedPort();
    const down = await ntfy.send(
      inputOf(
        {
          name: 'phone',
          kind: 'ntfy',
          settings: channelSettings({ url: `http://127.0.0.1:${port}/t`, allowPrivate: true }),
        },
        messageOf('opened'),
      ),
    );
    assert.equal(down.ok, false);
    assert.ok(!down.ok && !down.permanent && /ECONNREFUSED/.test(down.error), JSON.stringify(down));
    const none = await ntfy.send(
      inputOf({ name: 'phone', kind: 'ntfy', settings: channelSettings() }, messageOf('opened')),
    );
    assert.deepEqual(none, { ok: false, permanent: true, error: 'the channel has no topic URL' });
  });
});
