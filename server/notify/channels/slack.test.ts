import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Receiver, startReceiver } from '../../http/fixtures/receiver.ts';
import { startScriptedDns } from '../../http/fixtures/scripted-dns.ts';
import { channelSettings } from '../config.ts';
import type { Message } from '../message.ts';
import { alertOf, inputOf, manyAlerts, messageOf } from './fixtures/message.ts';
import { defaultApiBases, privateAllowedUnder } from './kind.ts';
import { escapeMrkdwn, slack, slackLimits } from './slack.ts';

type Block = {
  type: string;
  text?: { type: string; text: string };
  elements?: { type: string; text: string | { type: string; text: string }; url?: string }[];
};
type Posted = { text: string; blocks: Block[] };

/** Every text of a block: the limits apply to each. */
const textsOf = (block: Block) => [
  ...(block.text ? [block.text.text] : []),
  ...(block.elements ?? []).map((e) => (typeof e.text === 'string' ? e.text : e.text.text)),
];

describe('Slack channel', () => {
  let hooks: Receiver;
  const path = '/services/T0001/B0002/XXXXsecretXXXXtokenXXXX';
  before(async () => {
    hooks = await startReceiver();
  });
  after(() => hooks.close());

  /** A send to the test receiver, given to the channel as the Slack base as createTestServer would. */
  const send = async (message: Message, url = `${hooks.url}${path}`, base = hooks.url) => {
    hooks.received.length = 0;
    const channel = { name: 'team', kind: 'slack' as const, settings: channelSettings({ url }) };
    return slack.send(inputOf(channel, message, { bases: { ...defaultApiBases, slack: base } }));
  };
  const posted = () => hooks.received[0]!.json as Posted;

  test('a message is JSON with a fallback text, a header, the state and alerts, the cause and a button', async () => {
    assert.deepEqual(await send(messageOf('opened')), { ok: true });
    const got = hooks.received[0]!;
    assert.deepEqual([got.method, got.url], ['POST', path]);
    assert.equal(got.headers['content-type'], 'application/json; charset=utf-8');
    assert.deepEqual(posted(), {
      text: 'Incident opened: api: login down',
      blocks: [
        {
          type: 'header',
          text: { type: 'plain_text', text: 'Incident opened: api: login down', emoji: true },
        },
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: 'Open since 2026-11-23 14:05 UTC (0 s)\n\n• login (api) failing since 2026-11-23 14:05 UTC: connection refused',
          },
        },
        { type: 'section', text: { type: 'mrkdwn', text: 'Likely cause: deploy v42 of api' } },
        {
          type: 'context',
          elements: [
            { type: 'mrkdwn', text: 'deploy v42 by ana at 2026-11-23 14:01 UTC (https://ci.example/42)' },
          ],
        },
        {
          type: 'actions',
          elements: [
            {
              type: 'button',
              text: { type: 'plain_text', text: 'Open incident' },
              url: 'https://mon.example.com/incidents/42',
            },
          ],
        },
      ],
    });
  });

  test('acknowledgement, resolution and reminders are new messages that say their change', async () => {
    const heads: Record<string, RegExp> = {
      reminder: /^Still open, not acknowledged: api: login down$/,
      acknowledged: /^Acknowledged: api: login down$/,
      resolved: /^Resolved: api: login down$/,
      test: /^mon test message$/,
    };
    for (const [change, head] of Object.entries(heads)) {
      assert.deepEqual(await send(messageOf(change as Message['change'])), { ok: true });
      const { text, blocks } = posted();
      assert.match(text, head);
      assert.match(blocks[0]!.text!.text, head);
    }
    await send(messageOf('acknowledged'));
    assert.match(posted().blocks[1]!.text!.text, /acknowledged by ana@example\.com$/m);
    await send(messageOf('resolved'));
    assert.match(posted().blocks[1]!.text!.text, /^Resolved at 2026-11-23 14:30 UTC after 25 min/);
    await send(messageOf('test', { failing: [], failingCount: 0, alertCount: 0, cause: null, url: null }));
    assert.deepEqual(
      posted().blocks.map((b) => b.type),
      ['header', 'section'],
      'a test message has no alerts, cause or button',
    );
  });

  test('&, < and > are escaped in mrkdwn, so a name cannot format or mention', async () => {
    const message = messageOf('opened', {
      failing: [alertOf({ name: '<b>&co</b>', detail: '<!channel> 5 > 3' })],
      cause: { title: 'deploy <v42>', score: 0.5, evidence: [] },
      incident: { ...messageOf('opened').incident, title: 'api: <b>&co</b> down' },
    });
    await send(message);
    const { text, blocks } = posted();
    assert.equal(text, 'Incident opened: api: &lt;b&gt;&amp;co&lt;/b&gt; down');
    assert.equal(
      blocks[0]!.text!.text,
      'Incident opened: api: <b>&co</b> down',
      'plain_text is shown as written',
    );
    assert.match(
      blocks[1]!.text!.text,
      /^• &lt;b&gt;&amp;co&lt;\/b&gt; \(api\) failing since .*: &lt;!channel&gt; 5 &gt; 3$/m,
    );
    assert.equal(blocks[2]!.text!.text, 'Likely cause: deploy &lt;v42&gt;');
    assert.equal(escapeMrkdwn('a&b<c>d'), 'a&amp;b&lt;c&gt;d');
  });

  test('long names, long details and many alerts stay within Slack limits', async () => {
    const long = messageOf('opened', {
      ...manyAlerts(60),
      incident: { ...messageOf('opened').incident, title: `api: ${'c'.repeat(300)} down` },
      cause: {
        title: `deploy ${'v'.repeat(5000)}`,
        score: 0.9,
        evidence: Array.from({ length: 30 }, (_, i) => ({
          what: `deploy ${i} ${'&'.repeat(400)}`,
          ts: 0,
          by: null,
          url: null,
        })),
      },
    });
    long.failing[0] = alertOf({ name: 'c'.repeat(300), detail: '<&>'.repeat(3_400) });
    assert.deepEqual(await send(long), { ok: true });
    const { blocks } = posted();
    assert.ok(blocks.length <= slackLimits.blocks);
    assert.ok(blocks[0]!.text!.text.length <= slackLimits.header, 'header');
    assert.ok(blocks[0]!.text!.text.endsWith('…'));
    for (const block of blocks.slice(1))
      for (const text of textsOf(block)) {
        assert.ok(text.length <= slackLimits.text, `${block.type}: ${text.length}`);
        assert.doesNotMatch(text, /&[a-z]*…/, 'no entity is cut in half');
      }
    const alerts = blocks[1]!.text!.text;
    assert.equal(alerts.match(/^• /gm)?.length, 11, 'ten alerts and the rest counted');
    assert.match(alerts, /^• and 50 more$/m);
    assert.match(alerts, /^• c{20,}.*…$/m, 'the long alert is cut to a line');
  });

  test('answers map to sent, retry later (with Retry-After) or give up', async () => {
    const cases: [number, string, { permanent: boolean; retryAfterMs?: number }][] = [
      [400, 'invalid_payload', { permanent: true }],
      [403, 'action_prohibited', { permanent: true }],
      [404, 'no_service', { permanent: true }],
      [404, 'channel_not_found', { permanent: true }],
      [410, 'channel_is_archived', { permanent: true }],
      [429, 'rate_limited', { permanent: false, retryAfterMs: 7_000 }],
      [500, 'rollup_error', { permanent: false }],
      [503, 'service unavailable', { permanent: false }],
    ];
    try {
      for (const [status, body, expected] of cases) {
        hooks.answer = () => ({ status, body, headers: status === 429 ? { 'retry-after': '7' } : undefined });
        assert.deepEqual(
          await send(messageOf('opened')),
          { ok: false, error: `Slack answered ${status}: ${body}`, ...expected },
          body,
        );
      }
    } finally {
      hooks.answer = () => ({ status: 200, body: 'ok' });
    }
  });

  test('the webhook URL is a secret: an answer that quotes it is not repeated', async () => {
    try {
      for (const echo of [
        (u: string) => `${hooks.url}${u}`,
        (u: string) => u,
        (u: string) => u.split('/').at(-1)!,
      ]) {
        hooks.answer = (request) => ({ status: 404, body: `no_service ${echo(request.url)}` });
        const result = await send(messageOf('opened'));
        assert.ok(!result.ok, 'refused');
        assert.ok(
          !result.ok && !result.error.includes('XXXXsecretXXXXtokenXXXX'),
          !result.ok ? result.error : '',
        );
        assert.ok(!result.ok && result.error.includes('no_service [secret]'), !result.ok ? result.error : '');
      }
    } finally {
      hooks.answer = () => ({ status: 200, body: 'ok' });
    }
  });

  test('private addresses are reached only under a base that tests gave', async () => {
    // Without the test base (Slack's own), a URL on loopback is refused before anything is sent.
    const own = await send(messageOf('opened'), `${hooks.url}${path}`, 'https://hooks.slack.com');
    assert.deepEqual(own, {
      ok: false,
      permanent: true,
      error: 'refused 127.0.0.1: a loopback address; private addresses are not allowed for this channel',
    });
    // A URL that only starts like the base is not under it.
    const lookalike = await send(
      messageOf('opened'),
      `${hooks.url}/servicesx/T/B/X`,
      `${hooks.url}/services`,
    );
    assert.ok(!lookalike.ok && lookalike.permanent && lookalike.error.startsWith('refused 127.0.0.1'));
    assert.equal(hooks.received.length, 0);
    assert.deepEqual(await send(messageOf('opened'), `${hooks.url}${path}`, `${hooks.url}/services`), {
      ok: true,
    });

    assert.equal(
      privateAllowedUnder(`${hooks.url}/services/x`, 'slack', { ...defaultApiBases, slack: hooks.url }),
      true,
    );
    assert.equal(
      privateAllowedUnder(`${hooks.url}/services/x`, 'slack', {
        ...defaultApiBases,
        slack: `${hooks.url}/services`,
      }),
      true,
    );
    assert.equal(
      privateAllowedUnder(`${hooks.url}/servicesx`, 'slack', {
        ...defaultApiBases,
        slack: `${hooks.url}/services`,
      }),
      false,
    );
    assert.equal(
      privateAllowedUnder('https://hooks.slack.com/services/x', 'slack', {
        ...defaultApiBases,
        slack: 'https://hooks.slack.com',
      }),
      false,
    );
    assert.equal(privateAllowedUnder('not a url', 'slack', { ...defaultApiBases, slack: hooks.url }), false);
  });

  test('a named test base is resolved by the given DNS servers', async () => {
    const dns = await startScriptedDns((name, type) =>
      name === 'hooks.test' && type === 'A' ? ['127.0.0.1'] : [],
    );
    try {
      const base = `http://hooks.test:${new URL(hooks.url).port}`;
      const channel = {
        name: 'team',
        kind: 'slack' as const,
        settings: channelSettings({ url: `${base}${path}` }),
      };
      const input = {
        ...inputOf(channel, messageOf('opened'), { bases: { ...defaultApiBases, slack: base } }),
        dnsServers: [dns.server],
      };
      hooks.received.length = 0;
      assert.deepEqual(await slack.send(input), { ok: true });
      assert.equal(hooks.received[0]?.url, path);
    } finally {
      await dns.close();
    }
  });

  test('a channel without a URL, or with one that is not a URL, is refused for good', async () => {
    const result = await slack.send(
      inputOf({ name: 'team', kind: 'slack', settings: channelSettings() }, messageOf('opened')),
    );
    assert.deepEqual(result, { ok: false, permanent: true, error: 'the channel has no webhook URL' });
    const invalid = await send(messageOf('opened'), 'http://127.0.0.1:99999/services/T/B/XXXXsecret');
    assert.deepEqual(invalid, { ok: false, permanent: true, error: 'the URL is not valid' });
  });
});
