import assert from 'node:assert/strict';
import { test } from 'node:test';
import { authTestServer, browser } from '../auth/test-helpers.ts';
import { memoryLog } from '../testing.ts';
import { securityEvents } from './security-log.ts';

const setupToken = 'setup-token-never-logged';
const adminPassword = 'admin password never logged';
const viewerPassword = 'viewer password never logged';
const guessed = 'a guessed password never logged';

function cookieFrom(setCookie: string | string[] | undefined): string {
  const line = Array.isArray(setCookie) ? setCookie[0]! : setCookie!;
  return line.split(';')[0]!;
}

test('security events are logged with who, where and what, and never a secret', async () => {
  const memory = memoryLog();
  const server = await authTestServer({ env: { MON_SETUP_TOKEN: setupToken }, log: memory.log });
  const { app } = server;
  const secrets = [setupToken, adminPassword, viewerPassword, guessed, 'brand new viewer password'];
  const event = (name: string) => memory.lines().filter((line) => line.security === name);
  try {
    const setup = (token: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/auth/setup',
        payload: { token, email: 'admin@example.com', password: adminPassword },
      });
    assert.equal((await setup('not-the-setup-token')).statusCode, 403);
    const done = await setup(setupToken);
    assert.equal(done.statusCode, 201);
    const admin = browser(cookieFrom(done.headers['set-cookie']));
    secrets.push(admin.cookie!.slice('mon_session='.length));

    const made = await app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: admin,
      payload: { email: 'vic@example.com', role: 'viewer', password: viewerPassword },
    });
    assert.equal(made.statusCode, 201);
    const vicId = made.json().id as string;
    const login = (password: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'vic@example.com', password },
      });
    assert.equal((await login(guessed)).statusCode, 401);
    const signedIn = await login(viewerPassword);
    const vic = cookieFrom(signedIn.headers['set-cookie']);
    secrets.push(vic.slice('mon_session='.length));

    // Refused: a viewer's write, a write without Origin, a read token's write, an unknown token.
    const write = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api/v1/checks', headers, payload: {} });
    assert.equal((await write(browser(vic))).statusCode, 403);
    assert.equal((await write({ cookie: admin.cookie! })).statusCode, 403);
    const created = await app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: admin,
      payload: { scope: 'read', label: 'grafana' },
    });
    const token = created.json() as { id: string; token: string };
    secrets.push(token.token);
    assert.equal((await write({ authorization: `Bearer ${token.token}` })).statusCode, 403);
    const forged = `${token.token.slice(0, -4)}abcd`;
    secrets.push(forged);
    assert.equal((await write({ authorization: `Bearer ${forged}` })).statusCode, 401);
    const hostToken = 'bth_a-host-token-never-logged';
    secrets.push(hostToken);
    const frames = await app.inject({
      method: 'POST',
      url: '/agent/v1/frames',
      headers: { authorization: `Bearer ${hostToken}`, 'content-type': 'application/json' },
      payload: { frames: [] },
    });
    assert.equal(frames.statusCode, 401);
    assert.equal(
      (await app.inject({ method: 'DELETE', url: `/api/v1/tokens/${token.id}`, headers: admin })).statusCode,
      204,
    );

    const host = await app.inject({
      method: 'POST',
      url: '/api/v1/hosts',
      headers: admin,
      payload: { name: 'web-1' },
    });
    assert.equal(host.statusCode, 201);
    secrets.push((host.json() as { token: string }).token);
    const hostRemoved = await app.inject({ method: 'DELETE', url: '/api/v1/hosts/web-1', headers: admin });
    assert.equal(hostRemoved.statusCode, 204);

    const changed = await app.inject({
      method: 'PUT',
      url: `/api/v1/users/${vicId}`,
      headers: admin,
      payload: { role: 'admin', password: 'brand new viewer password' },
    });
    assert.equal(changed.statusCode, 200);
    const own = await app.inject({
      method: 'PUT',
      url: '/api/v1/auth/password',
      headers: admin,
      payload: { current: adminPassword, password: 'another admin password' },
    });
    assert.equal(own.statusCode, 204);
    secrets.push('another admin password');
    const renewed = browser(cookieFrom(own.headers['set-cookie']));
    secrets.push(renewed.cookie!.slice('mon_session='.length));
    const removed = await app.inject({ method: 'DELETE', url: `/api/v1/users/${vicId}`, headers: renewed });
    assert.equal(removed.statusCode, 204);

    let limited = 0;
    for (let i = 0; i < 20 && limited !== 429; i++) limited = (await login(guessed)).statusCode;
    assert.equal(limited, 429);

    const [badSetup, badLogin] = event('signin.failed');
    assert.deepEqual(
      { ...badSetup, time: undefined },
      {
        time: undefined,
        level: 'warn',
        message: 'sign-in failed',
        security: 'signin.failed',
        address: '127.0.0.1',
        email: 'admin@example.com',
        method: 'setup',
        reason: 'wrong setup token',
      },
    );
    assert.equal(badLogin?.email, 'vic@example.com');
    assert.equal(badLogin?.reason, 'wrong password');
    assert.equal(badLogin?.address, '127.0.0.1');
    assert.equal(event('setup.completed')[0]?.email, 'admin@example.com');

    const refusals = event('access.refused');
    assert.equal(refusals.length, 3);
    for (const r of refusals)
      assert.deepEqual([r.method, r.route, r.address], ['POST', '/api/v1/checks', '127.0.0.1']);
    assert.equal(refusals[0]?.user, 'vic@example.com');
    assert.equal(refusals[0]?.detail, 'only admins can do this');
    assert.equal(refusals[1]?.user, 'admin@example.com');
    assert.match(String(refusals[1]?.detail), /Origin/);
    assert.equal(refusals[2]?.tokenId, token.id);
    assert.equal(refusals[2]?.tokenLabel, 'grafana');
    assert.equal(event('token.rejected')[0]?.route, '/api/v1/checks');

    const tokenEvents = [...event('token.created'), ...event('token.revoked')];
    assert.deepEqual(
      tokenEvents.map((e) => [e.tokenId, e.label, e.scope, e.user]),
      [
        [token.id, 'grafana', 'read', 'admin@example.com'],
        [token.id, 'grafana', 'read', 'admin@example.com'],
      ],
    );
    assert.deepEqual(
      [...event('user.created'), ...event('user.changed'), ...event('user.deleted')].map((e) => [
        e.email,
        e.role,
        e.user,
      ]),
      [
        ['vic@example.com', 'viewer', 'admin@example.com'],
        ['vic@example.com', 'admin', 'admin@example.com'],
        ['vic@example.com', 'admin', 'admin@example.com'],
      ],
    );
    assert.deepEqual(
      event('host.token.created').map((e) => [e.host, e.replaced, e.user]),
      [['web-1', false, 'admin@example.com']],
    );
    assert.deepEqual(
      event('host.removed').map((e) => [e.host, e.user]),
      [['web-1', 'admin@example.com']],
    );
    assert.equal(event('user.changed')[0]?.passwordReset, true);
    assert.equal(event('user.changed')[0]?.previousRole, 'viewer');
    assert.equal(event('password.changed')[0]?.user, 'admin@example.com');
    assert.deepEqual(
      [event('rate.limited')[0]?.route, event('rate.limited')[0]?.address],
      ['/api/v1/auth/login', '127.0.0.1'],
    );

    // Every kind of event was seen (a provider's or proxy's first sign-in is `user.created` too).
    const seen = memory.lines().flatMap((line) => (line.security ? [line.security] : []));
    assert.deepEqual(new Set(seen), new Set(securityEvents));
    const text = memory.text();
    for (const secret of secrets) assert.ok(!text.includes(secret), `a log line holds ${secret}`);
  } finally {
    await server.dispose();
  }
});
