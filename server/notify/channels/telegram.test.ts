import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { closedPort } from '../../../runners/fixtures/context.ts';
import { type Answer, type Receiver, startReceiver } from '../../http/fixtures/receiver.ts';
import { channelSettings } from '../config.ts';
import type { Message } from '../message.ts';
import { inputOf, manyAlerts, messageOf } from './fixtures/message.ts';
import {
  blockedChat,
  botToken,
  chatId,
  fakeTelegram,
  parseHtml,
  type Shown,
} from './fixtures/telegram-api.ts';
import { type ApiBases, defaultApiBases, privateAllowedUnder, type SendInput } from './kind.ts';
import { htmlOf, telegram } from './telegram.ts';

test('the fake API reads HTML as Telegram does', () => {
  const shown = parseHtml(
    '<b><a href="https://x/?a=1&amp;b=&quot;2&quot;">a &lt;b&gt; &amp; c</a></b>\nrest',
  );
  assert.deepEqual(shown, {
    html: '<b><a href="https://x/?a=1&amp;b=&quot;2&quot;">a &lt;b&gt; &amp; c</a></b>\nrest',
    text: 'a <b> & c\nrest',
    links: ['https://x/?a=1&b="2"'],
    bold: ['a <b> & c'],
  });
  assert.match(String(parseHtml('a < b')), /can't parse entities/);
  assert.match(String(parseHtml('a &amp b')), /can't parse entities/);
  assert.match(String(parseHtml('<b>open')), /can't find end tag/);
  assert.match(String(parseHtml('<script>x</script>')), /can't parse entities/);
});

describe('telegram channel', () => {
  const fake = fakeTelegram();
  let receiver: Receiver;
  let bases: ApiBases;
  before(async () => {
    receiver = await startReceiver();
    receiver.answer = fake.answer;
    bases = { ...defaultApiBases, telegram: receiver.url };
  });
  after(() => receiver.close());
  beforeEach(() => {
    receiver.received.length = 0;
    fake.messages.clear();
  });

  const send = (message: Message, extra: Partial<SendInput> = {}, chat = chatId, token = botToken) =>
    telegram.send(
      inputOf(
        { name: 'ops', kind: 'telegram', settings: channelSettings({ secret: token, chatId: chat }) },
        message,
        { bases, ...extra },
      ),
    );
  const shown = (thread: string | undefined): Shown => fake.messages.get(Number(thread))!;

  test('the opening is sent in HTML with the headline linked, and its message id is the thread', async () => {
    const result = await send(messageOf('opened'));
    assert.ok(result.ok && result.thread && /^\d+$/.test(result.thread));
    const request = receiver.received[0]!;
    assert.equal(request.path, `/bot${botToken}/sendMessage`);
    assert.deepEqual(
      { ...(request.json as object), text: undefined },
      { chat_id: chatId, text: undefined, parse_mode: 'HTML', link_preview_options: { is_disabled: true } },
    );
    const message = shown(result.ok ? result.thread : undefined);
    assert.deepEqual(message.bold, ['Incident opened: api: login down']);
    assert.deepEqual(message.links, ['https://mon.example.com/incidents/42']);
    assert.equal(
      message.text,
      [
        'Incident opened: api: login down',
        'Open since 2026-11-23 14:05 UTC (0 s)',
        '',
        '- login (api) failing since 2026-11-23 14:05 UTC: connection refused',
        '',
        'Likely cause: deploy v42 of api',
        '  deploy v42 by ana at 2026-11-23 14:01 UTC (https://ci.example/42)',
      ].join('\n'),
    );
  });

  test('acknowledgement and resolution edit the first message; a reminder sends a new one', async () => {
    const opened = await send(messageOf('opened'));
    assert.ok(opened.ok && opened.thread);
    const thread = opened.thread;
    assert.deepEqual(await send(messageOf('reminder'), { thread }), { ok: true });
    assert.equal(receiver.received[1]!.path, `/bot${botToken}/sendMessage`);
    assert.equal(fake.messages.size, 2);

    assert.deepEqual(await send(messageOf('acknowledged'), { thread }), { ok: true });
    assert.equal(receiver.received[2]!.path, `/bot${botToken}/editMessageText`);
    assert.equal((receiver.received[2]!.json as { message_id: number }).message_id, Number(thread));
    assert.match(
      shown(thread).text,
      /^Acknowledged: api: login down\nOpen since .*, acknowledged by ana@example\.com\n/,
    );

    assert.deepEqual(await send(messageOf('resolved'), { thread }), { ok: true });
    assert.match(
      shown(thread).text,
      /^Resolved: api: login down\nResolved at 2026-11-23 14:30 UTC after 25 min\n/,
    );
    assert.equal(fake.messages.size, 2, 'the opening and the reminder');
  });

  test('an edit of a deleted message sends it anew; an unchanged edit counts as delivered', async () => {
    const opened = await send(messageOf('opened'));
    assert.ok(opened.ok && opened.thread);
    fake.messages.delete(Number(opened.thread));
    const ack = await send(messageOf('acknowledged'), { thread: opened.thread });
    assert.ok(ack.ok && ack.thread && ack.thread !== opened.thread, JSON.stringify(ack));
    assert.deepEqual(
      receiver.received.map((r) => r.path.split('/').at(-1)),
      ['sendMessage', 'editMessageText', 'sendMessage'],
    );
    assert.match(shown(ack.thread).text, /^Acknowledged: /);

    // The same change again (a retry after an answer that was lost): Telegram says "not modified".
    assert.deepEqual(await send(messageOf('acknowledged'), { thread: ack.thread }), { ok: true });
    assert.equal(receiver.received.length, 4);
  });

  test('markup in a check name and in the incident URL is escaped, never read as HTML', async () => {
    const message = messageOf('opened', { url: 'https://mon.example.com/incidents/42?a=1&b="2"' });
    message.failing[0]!.name = '<script>alert(1)</script>';
    message.incident.title = 'Tom & Jerry <b>';
    const result = await send(message);
    assert.ok(result.ok, JSON.stringify(result));
    const html = htmlOf(message);
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    const seen = shown(result.thread);
    assert.deepEqual(seen.bold, ['Incident opened: Tom & Jerry <b>']);
    assert.deepEqual(seen.links, ['https://mon.example.com/incidents/42?a=1&b="2"']);
    assert.match(seen.text, /- <script>alert\(1\)<\/script> \(api\) failing/);
  });

  test('long text full of characters to escape fits the 4,096 characters shown, cut only in the text', async () => {
    for (const detail of ['<&>'.repeat(3000), 'a&'.repeat(40), '"'.repeat(900)]) {
      const message = messageOf('opened', manyAlerts(60, detail));
      message.incident.title = '&'.repeat(1000);
      message.cause!.title = '<'.repeat(5000);
      const result = await send(message);
      assert.ok(result.ok, JSON.stringify(result));
      const seen = shown(result.thread);
      assert.ok(seen.text.length <= 4096, String(seen.text.length));
      assert.equal(seen.bold[0], `Incident opened: ${'&'.repeat(238)}…`);
      assert.match(seen.text, /\n- and \d+ more\n/);
      assert.match(seen.text, /\nLikely cause: <+…$/);
    }
  });

  describe('errors', () => {
    const failWith = async (answer: Answer) => {
      receiver.next(answer);
      return send(messageOf('opened'));
    };

    test('an unknown chat and a blocked bot are permanent', async () => {
      assert.deepEqual(await send(messageOf('opened'), {}, '-100424242'), {
        ok: false,
        permanent: true,
        error: 'Telegram answered 400: Bad Request: chat not found',
      });
      assert.deepEqual(await send(messageOf('opened'), {}, blockedChat), {
        ok: false,
        permanent: true,
        error: 'Telegram answered 403: Forbidden: bot was blocked by the user',
      });
    });

    test('a wrong token is permanent and no error carries the token', async () => {
      const result = await send(messageOf('opened'), {}, chatId, `${botToken}x`);
      assert.deepEqual(result, { ok: false, permanent: true, error: 'Telegram answered 401: Unauthorized' });
      const echoed = await failWith({
        status: 400,
        body: { ok: false, error_code: 400, description: `Bad Request: bad URL /bot${botToken}/sendMessage` },
      });
      assert.deepEqual(echoed, {
        ok: false,
        permanent: true,
        error: 'Telegram answered 400: Bad Request: bad URL /bot[secret]/sendMessage',
      });
    });

    test('429 is retried after the retry_after it gives', async () => {
      const result = await failWith({
        status: 429,
        body: {
          ok: false,
          error_code: 429,
          description: 'Too Many Requests: retry after 7',
          parameters: { retry_after: 7 },
        },
      });
      assert.deepEqual(result, {
        ok: false,
        permanent: false,
        error: 'Telegram answered 429: Too Many Requests: retry after 7',
        retryAfterMs: 7000,
      });
    });

    test('5xx is retried', async () => {
      const result = await failWith({
        status: 502,
        body: { ok: false, error_code: 502, description: 'Bad Gateway' },
      });
      assert.deepEqual(result, { ok: false, permanent: false, error: 'Telegram answered 502: Bad Gateway' });
    });

    test('a refused connection is retried and its error carries no token', async () => {
      const base = `http://127.0.0.1:${await closedPort()}`;
      const result = await send(messageOf('opened'), { bases: { ...defaultApiBases, telegram: base } });
      assert.ok(!result.ok && !result.permanent && /ECONNREFUSED/.test(result.error));
      assert.ok(!result.ok && !result.error.includes(botToken));
    });

    test('private addresses are reached only under the API base the tests give', async () => {
      const url = `${receiver.url}/bot${botToken}/sendMessage`;
      assert.equal(privateAllowedUnder(url, 'telegram', bases), true);
      assert.equal(privateAllowedUnder(url, 'telegram', defaultApiBases), false);
      assert.equal(privateAllowedUnder(`${receiver.url}0/bot${botToken}`, 'telegram', bases), false);
      // A trailing slash on the base changes nothing.
      const slashed = { ...bases, telegram: `${receiver.url}/` };
      assert.equal(privateAllowedUnder(url, 'telegram', slashed), true);
      assert.equal((await send(messageOf('opened'), { bases: slashed })).ok, true);
      assert.equal(receiver.received[0]!.path, `/bot${botToken}/sendMessage`);
    });

    test('a channel without a token or chat fails permanently without a request', async () => {
      assert.deepEqual(await send(messageOf('opened'), {}, ''), {
        ok: false,
        permanent: true,
        error: 'no bot token or chat id',
      });
      assert.equal(receiver.received.length, 0);
    });
  });
});
