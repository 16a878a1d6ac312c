import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { closedPort } from '../../../runners/fixtures/context.ts';
import { type Answer, type Received, type Receiver, startReceiver } from '../../http/fixtures/receiver.ts';
import { channelSettings } from '../config.ts';
import type { Message } from '../message.ts';
import { discord, type Embed, embedLimits } from './discord.ts';
import { inputOf, manyAlerts, messageOf } from './fixtures/message.ts';
import { type ApiBases, defaultApiBases, type SendInput } from './kind.ts';

const token = 'hook-token-3qT0x9vLmZb7Yk2WcHs4NdRf8UaEp1Jg6Vo5Xi0Bn';

/** Why Discord would refuse this embed (its documented limits), or null. */
function overLimits(embed: Embed): string | null {
  const total =
    embed.title.length +
    embed.description.length +
    embed.footer.text.length +
    embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
  if (embed.title.length > embedLimits.title) return 'title';
  if (embed.description.length > embedLimits.description) return 'description';
  if (embed.fields.length > embedLimits.fields) return 'fields';
  if (embed.fields.some((f) => !f.name || !f.value)) return 'empty field';
  if (embed.fields.some((f) => f.name.length > embedLimits.fieldName)) return 'field name';
  if (embed.fields.some((f) => f.value.length > embedLimits.fieldValue)) return 'field value';
  if (embed.footer.text.length > embedLimits.footer) return 'footer';
  if (total > embedLimits.total) return 'total';
  return null;
}

type Body = { embeds: Embed[]; allowed_mentions: { parse: string[] } };

/** A Discord webhook: keeps the messages posted to it, edits them, answers its errors. */
function fakeDiscord() {
  const messages = new Map<string, Embed>();
  let nextId = 1_100_000_000_000_000_000n;
  const answer = (request: Received): Answer => {
    const path = /^\/api\/webhooks\/(\d+)\/([\w-]+)(?:\/messages\/(\d+))?$/.exec(request.path);
    if (!path || path[2] !== token) return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
    const embed = (request.json as Body).embeds[0]!;
    const problem = overLimits(embed);
    if (problem)
      return { status: 400, body: { code: 50035, message: 'Invalid Form Body', errors: { problem } } };
    if (request.method === 'POST') {
      const id = String(nextId++);
      messages.set(id, embed);
      return request.query.get('wait') === 'true'
        ? { status: 200, body: { id, embeds: [embed] } }
        : { status: 204 };
    }
    const id = path[3]!;
    if (request.method !== 'PATCH' || !messages.has(id))
      return { status: 404, body: { message: 'Unknown Message', code: 10008 } };
    messages.set(id, embed);
    return { status: 200, body: { id, embeds: [embed] } };
  };
  return { messages, answer };
}

describe('discord channel', () => {
  const fake = fakeDiscord();
  let receiver: Receiver;
  let bases: ApiBases;
  let url = '';
  before(async () => {
    receiver = await startReceiver();
    receiver.answer = fake.answer;
    bases = { ...defaultApiBases, discord: receiver.url };
    url = `${receiver.url}/api/webhooks/1234567890/${token}`;
  });
  after(() => receiver.close());
  beforeEach(() => {
    receiver.received.length = 0;
    fake.messages.clear();
  });

  const send = (message: Message, extra: Partial<SendInput> = {}, hookUrl = url) =>
    discord.send(
      inputOf({ name: 'ops', kind: 'discord', settings: channelSettings({ url: hookUrl }) }, message, {
        bases,
        ...extra,
      }),
    );
  const bodyOf = (i: number) => receiver.received[i]!.json as Body;

  test('the opening posts an embed and answers its message id as the thread', async () => {
    const result = await send(messageOf('opened'));
    assert.equal(receiver.received.length, 1);
    const { method, query } = receiver.received[0]!;
    assert.equal(method, 'POST');
    assert.equal(query.get('wait'), 'true');
    const id = [...fake.messages.keys()][0]!;
    assert.deepEqual(result, { ok: true, thread: id });
    const body = bodyOf(0);
    assert.deepEqual(body.allowed_mentions, { parse: [] });
    const embed = body.embeds[0]!;
    assert.equal(embed.title, 'Incident opened: api: login down');
    assert.equal(embed.url, 'https://mon.example.com/incidents/42');
    assert.equal(embed.color, 0xd93025);
    assert.equal(embed.timestamp, '2026-11-23T14:05:00.000Z');
    assert.equal(embed.footer.text, 'mon');
    assert.match(
      embed.description,
      /^Open since 2026-11-23 14:05 UTC \(0 s\)\n\nLikely cause: deploy v42 of api\n/,
    );
    assert.match(embed.description, /deploy v42 by ana at 2026-11-23 14:01 UTC/);
    assert.deepEqual(embed.fields, [
      { name: 'login (api)', value: 'failing since 2026-11-23 14:05 UTC: connection refused', inline: false },
    ]);
  });

  test('acknowledgement and resolution edit the first message; a reminder posts a new one', async () => {
    const opened = await send(messageOf('opened'));
    assert.ok(opened.ok && opened.thread);
    const thread = opened.thread;

    const reminder = await send(messageOf('reminder'), { thread });
    assert.deepEqual(reminder, { ok: true }, 'the reminder keeps the first message as the one to edit');
    assert.equal(receiver.received[1]!.method, 'POST');
    assert.equal(bodyOf(1).embeds[0]!.color, 0xf29900);
    assert.match(bodyOf(1).embeds[0]!.title, /^Still open, not acknowledged: /);

    assert.deepEqual(await send(messageOf('acknowledged'), { thread }), { ok: true });
    assert.equal(receiver.received[2]!.method, 'PATCH');
    assert.equal(receiver.received[2]!.path, `/api/webhooks/1234567890/${token}/messages/${thread}`);
    assert.equal(fake.messages.get(thread)!.color, 0x1a73e8);
    assert.match(fake.messages.get(thread)!.description, /acknowledged by ana@example\.com/);

    assert.deepEqual(await send(messageOf('resolved'), { thread }), { ok: true });
    assert.equal(receiver.received[3]!.method, 'PATCH');
    const resolved = fake.messages.get(thread)!;
    assert.equal(resolved.color, 0x1e8e3e);
    assert.equal(resolved.title, 'Resolved: api: login down');
    assert.match(resolved.description, /^Resolved at 2026-11-23 14:30 UTC after 25 min/);
    assert.match(resolved.fields[0]!.value, /^recovered at 2026-11-23 14:30 UTC/);
    assert.equal(fake.messages.size, 2, 'the opening and the reminder');
  });

  test('an edit of a deleted message posts the message anew and answers the new thread', async () => {
    const opened = await send(messageOf('opened'));
    assert.ok(opened.ok && opened.thread);
    fake.messages.delete(opened.thread);
    const result = await send(messageOf('resolved'), { thread: opened.thread });
    assert.deepEqual(
      receiver.received.map((r) => r.method),
      ['POST', 'PATCH', 'POST'],
    );
    const fresh = [...fake.messages.keys()][0]!;
    assert.notEqual(fresh, opened.thread);
    assert.deepEqual(result, { ok: true, thread: fresh });
    assert.equal(fake.messages.get(fresh)!.title, 'Resolved: api: login down');
  });

  test('a webhook URL naming a forum thread keeps it for posts and edits', async () => {
    const inThread = `${url}?thread_id=77`;
    const opened = await send(messageOf('opened'), {}, inThread);
    assert.ok(opened.ok && opened.thread);
    assert.equal((await send(messageOf('resolved'), { thread: opened.thread }, inThread)).ok, true);
    const [post, patch] = receiver.received;
    assert.deepEqual([post!.query.get('thread_id'), post!.query.get('wait')], ['77', 'true']);
    assert.deepEqual(
      [patch!.method, patch!.query.get('thread_id'), patch!.query.get('wait')],
      ['PATCH', '77', null],
    );
  });

  test('a change without a thread posts and answers one; the test message answers none', async () => {
    const ack = await send(messageOf('acknowledged'));
    assert.ok(ack.ok && ack.thread && fake.messages.has(ack.thread));
    assert.deepEqual(await send(messageOf('test')), { ok: true });
    assert.equal(bodyOf(1).embeds[0]!.title, 'mon test message');
  });

  test('long names and details and 60 alerts stay within every embed limit', async () => {
    const long = 'x'.repeat(3000);
    const message = messageOf('opened', manyAlerts(60, `timeout ${long}`));
    message.incident.title = `api ${'y'.repeat(400)}`;
    message.failing[0]!.name = `n${'z'.repeat(400)}`;
    message.cause!.title = 'c'.repeat(5000);
    const result = await send(message);
    assert.equal(result.ok, true, JSON.stringify(result));
    const embed = bodyOf(0).embeds[0]!;
    assert.equal(overLimits(embed), null);
    assert.equal(embed.title.length, embedLimits.title);
    assert.ok(embed.title.endsWith('…'));
    assert.ok(embed.fields.length >= 1);
    assert.match(embed.description, new RegExp(`\\n\\nand ${60 - embed.fields.length} more$`));

    // Short alerts: as many fields as Discord takes, the rest counted.
    const many = await send(messageOf('opened', manyAlerts(60)));
    assert.equal(many.ok, true);
    const full = bodyOf(1).embeds[0]!;
    assert.equal(full.fields.length, 25);
    assert.equal(overLimits(full), null);
    assert.match(full.description, /and 35 more$/);
  });

  test('markup and mentions in a check name arrive as text and ping nobody', async () => {
    const message = messageOf('opened');
    message.failing[0]!.name = '<script>alert(1)</script> @everyone <@&123>';
    assert.equal((await send(message)).ok, true);
    const body = bodyOf(0);
    assert.equal(
      body.embeds[0]!.fields[0]!.name,
      '\\<script\\>alert(1)\\</script\\> @everyone \\<@&123\\> (api)',
    );
    assert.deepEqual(body.allowed_mentions.parse, []);
  });

  test('markdown in details, alert names, causes and evidence arrives escaped; mon keeps its own links', async () => {
    const link = '[Sign in again](https://evil.example/login) **now**';
    const lines =
      '# Urgent\n-# small\n> quoted\n- item\n1. first\n||spoiler|| `code` ~~gone~~ __under__ _it_';
    const message = messageOf('opened');
    message.incident.title = `api: ${link}`;
    message.failing[0]!.name = '**login**';
    message.failing[0]!.detail = `${link}\n${lines}`;
    message.cause!.title = `deploy ${link}`;
    message.cause!.evidence[0]!.what = `deploy\n${lines}`;
    message.cause!.evidence[0]!.by = '<@123> \\*ana*';
    assert.equal((await send(message)).ok, true);
    const embed = bodyOf(0).embeds[0]!;
    const masked = '\\[Sign in again\\](https://evil.example/login) \\*\\*now\\*\\*';
    const escapedLines = [
      '\\# Urgent',
      '\\-# small',
      '\\> quoted',
      '\\- item',
      '1\\. first',
      '\\|\\|spoiler\\|\\| \\`code\\` \\~\\~gone\\~\\~ \\_\\_under\\_\\_ \\_it\\_',
    ].join('\n');
    assert.equal(embed.title, `Incident opened: api: ${link}`, 'a title is shown without markup, as written');
    assert.equal(embed.url, 'https://mon.example.com/incidents/42');
    assert.equal(embed.fields[0]!.name, '\\*\\*login\\*\\* (api)');
    assert.equal(embed.fields[0]!.value, `failing since 2026-11-23 14:05 UTC: ${masked}\n${escapedLines}`);
    assert.equal(
      embed.description,
      [
        'Open since 2026-11-23 14:05 UTC (0 s)',
        '',
        `Likely cause: deploy ${masked}`,
        `deploy\n${escapedLines} by \\<@123\\> \\\\\\*ana\\* at 2026-11-23 14:01 UTC (<https://ci.example/42>)`,
      ].join('\n'),
    );
    // Discord shows \x as x for any punctuation x: what people read is the text as written.
    const shown = (text: string) => text.replace(/\\([^0-9A-Za-z\s])/g, '$1');
    assert.equal(shown(embed.fields[0]!.value), `failing since 2026-11-23 14:05 UTC: ${link}\n${lines}`);
    assert.equal(shown(embed.fields[0]!.name), '**login** (api)');
  });

  test("an address in a detail stays a working link: its _ and * are not escaped, the text's are", async () => {
    const message = messageOf('opened');
    message.failing[0]!.detail = 'GET https://api.example.com/user_info?q=a*b answered 500 (_retry_ later)';
    assert.equal((await send(message)).ok, true);
    assert.equal(
      bodyOf(0).embeds[0]!.fields[0]!.value,
      'failing since 2026-11-23 14:05 UTC: GET https://api.example.com/user_info?q=a*b answered 500 (\\_retry\\_ later)',
    );
  });

  describe('errors', () => {
    const failWith = async (answer: Answer) => {
      receiver.next(answer);
      return send(messageOf('opened'));
    };

    test('an unknown webhook is permanent and its URL and token stay out of the error', async () => {
      const result = await send(
        messageOf('opened'),
        {},
        `${receiver.url}/api/webhooks/1234567890/wrong-${token}`,
      );
      assert.equal(result.ok, false);
      assert.ok(!result.ok && result.permanent);
      assert.ok(
        !result.ok && result.error === 'Discord answered 404: Unknown Webhook (code 10015)',
        result.error,
      );
    });

    test('401 and 403 are permanent', async () => {
      for (const status of [401, 403]) {
        const result = await failWith({ status, body: { message: 'Missing Access', code: 50001 } });
        assert.deepEqual(result, {
          ok: false,
          permanent: true,
          error: `Discord answered ${status}: Missing Access (code 50001)`,
        });
      }
    });

    test('429 waits as long as the body says, or the Retry-After header', async () => {
      const limited = await failWith({
        status: 429,
        body: { message: 'You are being rate limited.', retry_after: 1.234, global: false },
        headers: { 'retry-after': '2' },
      });
      assert.deepEqual(limited, {
        ok: false,
        permanent: false,
        error: 'Discord answered 429: You are being rate limited.',
        retryAfterMs: 1234,
      });
      const header = await failWith({ status: 429, body: {}, headers: { 'retry-after': '3' } });
      assert.ok(!header.ok && !header.permanent && header.retryAfterMs === 3000);
    });

    test('5xx is retried', async () => {
      const result = await failWith({ status: 502, body: { message: 'Bad Gateway' } });
      assert.deepEqual(result, { ok: false, permanent: false, error: 'Discord answered 502: Bad Gateway' });
    });

    test('a refused connection is retried and does not quote the URL', async () => {
      const base = `http://127.0.0.1:${await closedPort()}`;
      const hook = `${base}/api/webhooks/1/${token}`;
      const result = await send(messageOf('opened'), { bases: { ...defaultApiBases, discord: base } }, hook);
      assert.match(result.ok ? '' : result.error, /ECONNREFUSED/);
      assert.ok(!result.ok && !result.permanent);
      assert.ok(!result.ok && !result.error.includes(token), result.error);
    });

    test('a private address is refused unless under a base the tests give', async () => {
      const result = await send(messageOf('opened'), { bases: defaultApiBases });
      assert.ok(!result.ok && result.permanent && /refused 127\.0\.0\.1/.test(result.error));
      assert.equal(receiver.received.length, 0);
    });

    test('an error the receiver echoes the URL in is scrubbed', async () => {
      const result = await failWith({ status: 400, body: { message: `bad ${url}`, code: 50035 } });
      assert.deepEqual(result, {
        ok: false,
        permanent: true,
        error: 'Discord answered 400: bad [secret] (code 50035)',
      });
    });

    test('a channel without a valid URL fails permanently without a request', async () => {
      const result = await send(messageOf('opened'), {}, 'not a url');
      assert.deepEqual(result, { ok: false, permanent: true, error: 'no valid webhook URL' });
      assert.equal(receiver.received.length, 0);
    });
  });
});
