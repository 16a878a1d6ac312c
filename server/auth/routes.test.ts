import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyRequest } from 'fastify';
import type { AuthState, Me } from '../../protocol/accounts.ts';
import { FakeClock } from '../clock.ts';
import { staticConfig } from '../config/service.ts';
import { authConfigSchema } from './config.ts';
import { PasswordHasher } from './passwords.ts';
import { authTestServer, browser } from './test-helpers.ts';

const password = 'a good long password';

function cookieFrom(setCookie: string | string[] | undefined): string {
  const line = Array.isArray(setCookie) ? setCookie[0]! : setCookie!;
  return line.split(';')[0]!;
}

test('login, me, logout; the cookie is HttpOnly, SameSite=Lax, 30 days', async () => {
  const server = await authTestServer();
  const { app } = server;
  try {
    await server.addUser('bob@example.com', 'viewer', password);
    const wrong = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'bob@example.com', password: 'not the password' },
    });
    assert.equal(wrong.statusCode, 401);
    const unknown = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'nobody@example.com', password },
    });
    assert.equal(unknown.statusCode, 401);
    assert.equal(unknown.json().detail, wrong.json().detail, 'unknown and wrong look alike');

    const ok = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'BOB@example.com', password },
    });
    assert.equal(ok.statusCode, 200);
    const setCookie = String(ok.headers['set-cookie']);
    assert.match(
      setCookie,
      /^mon_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    const cookie = cookieFrom(ok.headers['set-cookie']);
    const me = await app.inject({ url: '/api/v1/auth/me', headers: { cookie } });
    assert.equal(me.statusCode, 200);
    assert.equal(me.json<Me>().email, 'bob@example.com');
    assert.equal(me.json<Me>().role, 'viewer');

    // The session id is stored only as its hash.
    const stored = server.deps.store.read.prepare('SELECT id_hash FROM sessions').all() as {
      id_hash: Uint8Array;
    }[];
    assert.ok(stored.every((s) => s.id_hash.length === 32));
    assert.ok(!JSON.stringify(stored).includes(cookie.slice('mon_session='.length)));

    const out = await app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: browser(cookie) });
    assert.equal(out.statusCode, 204);
    assert.match(String(out.headers['set-cookie']), /^mon_session=;/);
    assert.equal((await app.inject({ url: '/api/v1/auth/me', headers: { cookie } })).statusCode, 401);
    assert.equal((await app.inject({ url: '/api/v1/auth/me' })).statusCode, 401);
  } finally {
    await server.dispose();
  }
});

test('the cookie is Secure when [server] url is HTTPS, and writes need that exact Origin', async () => {
  const server = await authTestServer({
    config: staticConfig({ server: { url: 'https://mon.example.com', trustedProxies: [] } }),
  });
  const { app } = server;
  try {
    await server.addUser('ann@example.com', 'admin', password);
    const ok = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'ann@example.com', password },
    });
    assert.match(String(ok.headers['set-cookie']), /; Secure/);
    const cookie = cookieFrom(ok.headers['set-cookie']);
    const body = { scope: 'read', label: 'ci' };
    const post = (origin?: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/tokens',
        headers: origin ? { cookie, origin } : { cookie },
        payload: body,
      });
    assert.equal((await post()).statusCode, 403);
    assert.equal((await post('https://evil.example.com')).statusCode, 403);
    assert.equal((await post('http://mon.example.com')).statusCode, 403);
    assert.equal(
      (await post('http://localhost')).statusCode,
      403,
      'the Host does not count when a URL is set',
    );
    assert.equal((await post('https://mon.example.com')).statusCode, 201);
    // Reads need no Origin.
    assert.equal((await app.inject({ url: '/api/v1/tokens', headers: { cookie } })).statusCode, 200);
  } finally {
    await server.dispose();
  }
});

test('without [server] url the Origin must name the request Host; bearer writes are exempt', async () => {
  const server = await authTestServer();
  const { app } = server;
  try {
    const admin = await server.addUser('ann@example.com', 'admin', password);
    const cookie = await server.cookieOf(admin);
    const out = (origin: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/auth/logout',
        headers: { cookie, origin, host: 'mon.lan:8080' },
      });
    assert.equal((await out('http://other.lan:8080')).statusCode, 403);
    assert.equal((await out('http://mon.lan')).statusCode, 403);
    assert.equal((await out('http://mon.lan:8080')).statusCode, 204);

    // No write route of this module takes a token, so ask the authenticator directly, as for a
    // `write` route: a bearer write without Origin passes, a cookie write without Origin does not.
    const write = await server.tokenOf('write');
    const asWrite = (headers: Record<string, string>) =>
      server.accounts.authenticate({
        method: 'POST',
        headers,
        routeOptions: { config: { access: 'write' } },
        socket: { remoteAddress: '127.0.0.1' },
      } as unknown as FastifyRequest);
    const principal = await asWrite({ authorization: `Bearer ${write}`, host: 'mon.lan:8080' });
    assert.equal(principal?.kind, 'token');
    const fresh = await server.cookieOf(admin);
    await assert.rejects(asWrite({ cookie: fresh, host: 'mon.lan:8080' }), { status: 403 });
  } finally {
    await server.dispose();
  }
});

test('a token takes precedence over a cookie; a bad token is 401 even with a good cookie; never from the query', async () => {
  const server = await authTestServer();
  const { app } = server;
  try {
    const cookie = await server.cookieOf(await server.addUser('ann@example.com', 'admin'));
    const read = await server.tokenOf('read');
    const withBoth = await app.inject({
      url: '/api/v1/users',
      headers: { cookie, authorization: `Bearer ${read}` },
    });
    assert.equal(withBoth.statusCode, 403, 'the read token decides, not the admin cookie');
    const badToken = await app.inject({
      url: '/api/v1/users',
      headers: { cookie, authorization: 'Bearer mon_not-a-real-token' },
    });
    assert.equal(badToken.statusCode, 401);
    assert.equal((await app.inject({ url: `/metrics?token=${read}` })).statusCode, 401);
    assert.equal((await app.inject({ url: `/metrics?access_token=${read}` })).statusCode, 401);
    assert.equal(
      (await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${read}` } })).statusCode,
      200,
    );
    // A bad token on an open route is just nobody.
    const auth = await app.inject({ url: '/api/v1/auth', headers: { authorization: 'Bearer mon_nope' } });
    assert.equal(auth.statusCode, 200);
    assert.equal(auth.json<AuthState>().user, null);
  } finally {
    await server.dispose();
  }
});

test('sessions end after 30 days', async () => {
  const clock = new FakeClock();
  const server = await authTestServer({ clock });
  try {
    const cookie = await server.cookieOf(await server.addUser('ann@example.com', 'viewer'));
    assert.equal((await server.app.inject({ url: '/api/v1/auth/me', headers: { cookie } })).statusCode, 200);
    await clock.jump(30 * 86_400_000 - 1000);
    assert.equal((await server.app.inject({ url: '/api/v1/auth/me', headers: { cookie } })).statusCode, 200);
    await clock.advance(1000);
    assert.equal((await server.app.inject({ url: '/api/v1/auth/me', headers: { cookie } })).statusCode, 401);
  } finally {
    await server.dispose();
  }
});

test('sign-in attempts per client address: bursts of 10, then 1 per second, then 429', async () => {
  const clock = new FakeClock();
  const server = await authTestServer({
    clock,
    config: staticConfig({ server: { url: null, trustedProxies: ['10.0.0.0/8'] } }),
  });
  const login = (remoteAddress: string, xff?: string) =>
    server.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      remoteAddress,
      headers: xff ? { 'x-forwarded-for': xff } : {},
      payload: { email: 'nobody@example.com', password },
    });
  try {
    for (let i = 0; i < 10; i++) assert.equal((await login('192.0.2.1')).statusCode, 401);
    const limited = await login('192.0.2.1');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '1');
    // An untrusted peer's X-Forwarded-For is ignored: still the same address.
    assert.equal((await login('192.0.2.1', '198.51.100.7')).statusCode, 429);
    // Behind a trusted proxy each client has its own bucket.
    assert.equal((await login('10.0.0.1', '198.51.100.7')).statusCode, 401);
    // Setup attempts share the limit.
    const setup = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      remoteAddress: '192.0.2.1',
      payload: {},
    });
    assert.equal(setup.statusCode, 429);
    await clock.advance(1000);
    assert.equal((await login('192.0.2.1')).statusCode, 401);
    assert.equal((await login('192.0.2.1')).statusCode, 429);
  } finally {
    await server.dispose();
  }
});

test('a third simultaneous password check answers 503 with Retry-After', async () => {
  const server = await authTestServer();
  try {
    // The real parameters: each check takes long enough for the three to overlap.
    server.accounts.state.hasher = new PasswordHasher();
    await server.addUser('ann@example.com', 'viewer', password);
    const attempts = await Promise.all(
      [1, 2, 3].map((i) =>
        server.app.inject({
          method: 'POST',
          url: '/api/v1/auth/login',
          remoteAddress: `192.0.2.${i}`,
          payload: { email: 'ann@example.com', password },
        }),
      ),
    );
    const statuses = attempts.map((a) => a.statusCode).sort();
    assert.deepEqual(statuses, [200, 200, 503]);
    const busy = attempts.find((a) => a.statusCode === 503)!;
    assert.equal(busy.headers['retry-after'], '1');
  } finally {
    await server.dispose();
  }
});

test('password sign-in can be turned off', async () => {
  const server = await authTestServer({
    config: staticConfig({ auth: authConfigSchema.parse({ password: false }) }),
  });
  try {
    await server.addUser('ann@example.com', 'viewer', password);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'ann@example.com', password },
    });
    assert.equal(res.statusCode, 403);
    assert.equal((await server.app.inject({ url: '/api/v1/auth' })).json<AuthState>().password, false);
  } finally {
    await server.dispose();
  }
});

test('changing one’s own password needs the current one, ends every session and starts a new one', async () => {
  const server = await authTestServer();
  const { app } = server;
  try {
    const id = await server.addUser('ann@example.com', 'viewer', password);
    const mine = await server.cookieOf(id);
    const other = await server.cookieOf(id);
    const change = (body: object) =>
      app.inject({ method: 'PUT', url: '/api/v1/auth/password', headers: browser(mine), payload: body });
    const wrong = await change({ current: 'not my password', password: 'a brand new password' });
    assert.equal(wrong.statusCode, 422);
    assert.equal(wrong.json().detail, 'current: is not the current password');
    assert.equal(
      (await change({ current: password, password: 'short' })).json().detail,
      'password: must be at least 10 characters',
    );
    const changed = await change({ current: password, password: 'a brand new password' });
    assert.equal(changed.statusCode, 204);
    // The caller gets a new session id: one copied from the old cookie no longer works.
    assert.match(String(changed.headers['set-cookie']), /^mon_session=[A-Za-z0-9_-]{43}; Max-Age=2592000;/);
    const renewed = cookieFrom(changed.headers['set-cookie']);
    assert.notEqual(renewed, mine);
    const me = (cookie: string) => app.inject({ url: '/api/v1/auth/me', headers: { cookie } });
    assert.equal((await me(renewed)).statusCode, 200);
    assert.equal((await me(mine)).statusCode, 401);
    assert.equal((await me(other)).statusCode, 401);
    assert.equal(
      server.deps.store.read.prepare('SELECT method FROM sessions').all().length,
      1,
      'only the new session is left',
    );
    const login = (pw: string) =>
      app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'ann@example.com', password: pw },
      });
    assert.equal((await login(password)).statusCode, 401);
    assert.equal((await login('a brand new password')).statusCode, 200);

    const noPassword = await server.cookieOf(await server.addUser('sso@example.com', 'viewer'));
    const res = await app.inject({
      method: 'PUT',
      url: '/api/v1/auth/password',
      headers: browser(noPassword),
      payload: { current: 'whatever it is', password: 'a brand new password' },
    });
    assert.equal(res.statusCode, 409);
  } finally {
    await server.dispose();
  }
});

test('GET /api/v1/auth lists providers and says whether forward auth is on', async () => {
  const auth = authConfigSchema.parse({
    oidc: [{ name: 'company', label: 'Company SSO', issuer: 'https://id.example.com', client_id: 'mon' }],
    proxy: {},
  });
  const server = await authTestServer({ config: staticConfig({ auth }) });
  try {
    const res = await server.app.inject({ url: '/api/v1/auth' });
    assert.deepEqual(res.json(), {
      needsSetup: true,
      user: null,
      password: true,
      providers: [{ name: 'company', label: 'Company SSO', url: '/api/v1/auth/oidc/company' }],
      proxy: true,
    } satisfies AuthState);
  } finally {
    await server.dispose();
  }
});
