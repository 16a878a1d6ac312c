import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authTestServer, browser } from '../auth/test-helpers.ts';
import { startReceiver } from '../http/fixtures/receiver.ts';
import { quietSpell, watchdogServer } from './testkit.ts';

/** The watchdog routes' answers to bad bodies and to each kind of caller. */

test('each bad field of a PUT is a 422 naming it, and changes nothing', async (t) => {
  const edge = await startReceiver();
  const { server, inject, read } = await watchdogServer();
  t.after(async () => {
    await server.dispose();
    await edge.close();
  });
  const url = `${edge.url}/beat`;
  const cases: [string, unknown, string][] = [
    ['/watchdog/edge', { token: 'tok-1', allowPrivate: true }, 'url: required'],
    ['/watchdog/edge', { url: '', token: 'tok-1', allowPrivate: true }, 'url: must not be empty'],
    ['/watchdog/edge', { url: 42, token: 'tok-1' }, 'url: must be a string'],
    [
      '/watchdog/edge',
      { url: 'edge.example.com', token: 'tok-1' },
      'url: must be an http:// or https:// URL',
    ],
    [
      '/watchdog/edge',
      { url: 'ftp://edge.example.com/', token: 'tok-1' },
      'url: must be an http:// or https:// URL',
    ],
    [
      '/watchdog/edge',
      { url: 'https://me:pw@edge.example.com/', token: 'tok-1' },
      'url: must not hold a user name or password',
    ],
    [
      '/watchdog/edge',
      { url: `https://e.example/${'x'.repeat(2048)}`, token: 'tok-1' },
      'url: must be at most 2048 characters',
    ],
    ['/watchdog/edge', { url, token: '', allowPrivate: true }, 'token: must not be empty'],
    [
      '/watchdog/edge',
      { url, token: 'two words', allowPrivate: true },
      'token: must be printable characters without spaces',
    ],
    ['/watchdog/edge', { url, token: 7, allowPrivate: true }, 'token: must be a string'],
    ['/watchdog/edge', { url, token: 'tok-1', allowPrivate: 'yes' }, 'allowPrivate: must be true or false'],
    ['/watchdog/edge', { url, token: 'tok-1', allowPrivate: true, every: '1m' }, 'every: unknown field'],
    ['/watchdog/heartbeat-url', { allowPrivate: true }, 'url: required'],
    ['/watchdog/heartbeat-url', { url, token: 'tok-1', allowPrivate: true }, 'token: unknown field'],
    ['/watchdog/heartbeat-url', { url: 'mailto:ops@example.com' }, 'url: must be an http:// or https:// URL'],
  ];
  for (const [path, body, detail] of cases) {
    const res = await inject('PUT', path, body);
    assert.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text}`);
    assert.equal(res.json().detail, detail, JSON.stringify(body));
  }
  const notJson = await server.app.inject({
    method: 'PUT',
    url: '/api/v1/watchdog/heartbeat-url',
    headers: { 'content-type': 'application/json' },
    payload: '[1]',
  });
  assert.equal(notJson.statusCode, 400);
  assert.deepEqual(await read(), { edge: null, heartbeat: null, everyMs: 60_000 });
  await quietSpell();
  assert.equal(edge.received.length, 0);
});

test('reading takes a read token or any session; changing takes a write token or an admin', async (t) => {
  const ping = await startReceiver();
  const server = await authTestServer();
  t.after(async () => {
    await server.dispose();
    await ping.close();
  });
  const [readToken, writeToken] = [await server.tokenOf('read'), await server.tokenOf('write')];
  const viewer = await server.cookieOf(await server.addUser('viewer@example.com', 'viewer'));
  const admin = await server.cookieOf(await server.addUser('admin@example.com', 'admin'));
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const call = async (method: 'GET' | 'PUT' | 'DELETE', path: string, headers: Record<string, string>) => {
    const res = await server.app.inject({
      method,
      url: `/api/v1/watchdog${path}`,
      headers,
      ...(method === 'PUT' ? { payload: { url: `${ping.url}/p`, allowPrivate: true } } : {}),
    });
    return { status: res.statusCode, title: res.statusCode >= 400 ? res.json().title : null };
  };

  for (const [method, path] of [
    ['GET', ''],
    ['PUT', '/heartbeat-url'],
    ['DELETE', '/heartbeat-url'],
    ['DELETE', '/edge'],
  ] as const) {
    assert.equal((await call(method, path, {})).status, 401, `${method} ${path} without credentials`);
  }
  assert.equal((await call('GET', '', bearer(readToken))).status, 200);
  assert.equal((await call('GET', '', browser(viewer))).status, 200);
  assert.deepEqual(await call('PUT', '/heartbeat-url', bearer(readToken)), {
    status: 403,
    title: 'forbidden',
  });
  assert.deepEqual(await call('DELETE', '/edge', bearer(readToken)), { status: 403, title: 'forbidden' });
  assert.deepEqual(await call('PUT', '/heartbeat-url', browser(viewer)), {
    status: 403,
    title: 'only admins can do this',
  });
  assert.deepEqual(await call('DELETE', '/heartbeat-url', browser(viewer)), {
    status: 403,
    title: 'only admins can do this',
  });
  assert.equal(ping.received.length, 0, 'a refused PUT sends nothing');

  assert.equal((await call('PUT', '/heartbeat-url', bearer(writeToken))).status, 204);
  await ping.arrived(1);
  assert.equal((await call('PUT', '/heartbeat-url', browser(admin))).status, 204);
  await ping.arrived(2);
  assert.equal((await call('DELETE', '/heartbeat-url', browser(admin))).status, 204);
  assert.equal((await call('DELETE', '/heartbeat-url', bearer(writeToken))).status, 204);
});
