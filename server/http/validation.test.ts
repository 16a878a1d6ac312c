import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import type { TokensList } from '../../protocol/accounts.ts';
import { type AuthTestServer, authTestServer, browser } from '../auth/test-helpers.ts';
import { loadConfigText } from '../config/load.ts';

/** The schema library's own phrasing, which must never reach a person. */
const libraryWords = /Invalid|Too big|Too small|[Ee]xpected \w+|received|Unrecognized|[<>]=?\s?\d/;

let server: AuthTestServer;
let base: string;
before(async () => {
  server = await authTestServer();
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}`;
});
after(() => server.dispose());

const web = { name: 'home', service: 'shop', kind: 'http', target: 'http://127.0.0.1:9/' };

test('bad check bodies answer 422 naming the field, in mon words', async () => {
  const headers = {
    authorization: `Bearer ${await server.tokenOf('write')}`,
    'content-type': 'application/json',
  };
  const bodies: [string, Record<string, unknown>, string][] = [
    ['name', { ...web, name: 5 }, 'name: must be a name (text)'],
    ['service', { name: 'home', kind: 'http', target: web.target }, 'service: required'],
    ['kind', { ...web, kind: 'udp' }, 'kind: must be one of http, tcp, dns, ping, domain, heartbeat'],
    ['color', { ...web, color: 'red' }, 'color: unknown field'],
    ['everyMs', { ...web, everyMs: 8 * 86_400_000 }, 'everyMs: must be at most 604800000 (7 days)'],
    ['timeoutMs', { ...web, timeoutMs: 1500.5 }, 'timeoutMs: must be a whole number of milliseconds'],
    [
      'method',
      { ...web, method: 'FETCH' },
      'method: must be one of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    ],
    [
      'expect',
      { ...web, expect: Array(21).fill({ status: 200 }) },
      'expect: must have at most 20 assertions',
    ],
    [
      'expect[0].status',
      { ...web, expect: [{ status: 700 }] },
      'expect[0].status: must be a status code from 100 to 599 or a pattern such as 2xx',
    ],
    [
      'expect[0].equals',
      { ...web, expect: [{ equals: [] }] },
      'expect[0].equals: must be a string, a number or true or false',
    ],
  ];
  for (const [field, body, expected] of bodies) {
    const res = await fetch(`${base}/api/v1/checks`, { method: 'POST', headers, body: JSON.stringify(body) });
    assert.equal(res.status, 422, field);
    assert.equal(res.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    const { detail } = (await res.json()) as { detail: string };
    assert.ok(detail.startsWith(`${field}: `), `${detail} names ${field}`);
    assert.doesNotMatch(detail, libraryWords);
    assert.equal(detail, expected);
  }
  const list = await fetch(`${base}/api/v1/services`, { headers });
  assert.deepEqual(await list.json(), { services: [] }, 'nothing was stored');
});

test('account bodies read the same way', async () => {
  const cookie = await server.cookieOf(await server.addUser('ann@example.com', 'admin'));
  const headers = { ...browser(cookie), origin: base, 'content-type': 'application/json' };
  const token = await fetch(`${base}/api/v1/tokens`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ scope: 'read', label: 'ci', expires: 5 }),
  });
  assert.equal(token.status, 422);
  assert.deepEqual(await token.json(), {
    type: 'about:blank',
    status: 422,
    title: 'invalid value',
    detail: 'expires: unknown field',
  });
  const { tokens } = (await (await fetch(`${base}/api/v1/tokens`, { headers })).json()) as TokensList;
  assert.ok(!tokens.some((t) => t.label === 'ci'), 'nothing was stored');
});

test('mon.toml errors use the same words, a TOML table being a table', () => {
  const result = loadConfigText(
    [
      'trusted_proxies = "10.0.0.1"',
      '[server]',
      'url = 5',
      '[auth]',
      'password = "yes"',
      '[[alert]]',
      'type = "pager"',
      '[[check]]',
      'name = "home"',
      'service = "shop"',
      'url = "https://example.com"',
      'every = "1m"',
      'headers = 5',
      '[[service]]',
      'name = "db"',
      'tier = "top"',
      'hosts = "web-1"',
      'color = "red"',
    ].join('\n'),
    { env: {} },
  );
  assert.equal(result.ok, false);
  const lines = result.ok ? [] : result.error.split('\n');
  assert.deepEqual(lines.sort(), [
    'alert[0].type: must be one of ntfy, webhook, slack, discord, telegram, email',
    'auth.password: must be true or false',
    'check[0].headers: must be a table',
    'server.url: must be a string',
    'service[0].color: unknown key',
    'service[0].hosts: must be a list',
    'service[0].tier: must be one of critical, standard, low',
    'trusted_proxies: must be a list',
  ]);
  for (const line of lines) assert.doesNotMatch(line, libraryWords);
});
