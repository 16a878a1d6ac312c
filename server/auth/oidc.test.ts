import assert from 'node:assert/strict';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import Provider from 'oidc-provider';
import { staticConfig } from '../config/service.ts';
import { memoryLog } from '../testing.ts';
import { authConfigSchema } from './config.ts';
import { type AuthTestServer, authTestServer } from './test-helpers.ts';

/**
 * Signs in end to end against a real OpenID Connect provider (oidc-provider) on loopback:
 * mon → provider's login form → provider → mon's callback → session cookie.
 */

const monUrl = 'http://127.0.0.1:8089';
const redirectUri = `${monUrl}/api/v1/auth/oidc/test/callback`;
let providerServer: Server;
let issuer = '';
let mon: AuthTestServer;

function providerConfig(overrides: object = {}) {
  return {
    name: 'test',
    issuer,
    client_id: 'mon',
    client_secret: 'a client secret of some length',
    allowed_domains: ['example.com'],
    allowed_emails: ['guest@other.org'],
    admins: ['boss@example.com'],
    ...overrides,
  };
}
const memory = memoryLog();
const securityLines = (event: string) => memory.lines().filter((line) => line.security === event);

/** The `[auth]` table mon sees now; tests change it as a reload of mon.toml would. */
let liveAuth = authConfigSchema.parse({});

before(async () => {
  providerServer = createHttpServer();
  await new Promise<void>((resolve) => providerServer.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(providerServer.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'mon',
        client_secret: 'a client secret of some length',
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // The account id is the email address; `unverified@…` has an unverified one.
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () =>
        sub.startsWith('unmarked@')
          ? { sub, email: sub }
          : { sub, email: sub, email_verified: !sub.startsWith('unverified@') },
    }),
    // Consent is granted at once, so the only interaction is the login form.
    loadExistingGrant: async (ctx: {
      oidc: {
        provider: { Grant: new (o: object) => GrantLike };
        client: { clientId: string };
        session: { accountId: string };
      };
    }) => {
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    cookies: { keys: ['test cookie key'] },
    ttl: {
      Interaction: 600,
      Grant: 600,
      Session: 600,
      AccessToken: 600,
      IdToken: 600,
      AuthorizationCode: 60,
    },
  });
  providerServer.on('request', provider.callback());
  liveAuth = authConfigSchema.parse({ oidc: [providerConfig()] });

  const base = staticConfig({
    server: { url: monUrl, trustedProxies: [] },
    auth: authConfigSchema.parse({ oidc: [providerConfig()] }),
  });
  mon = await authTestServer({
    config: { ...base, current: () => ({ ...base.current(), auth: liveAuth }) },
    log: memory.log,
  });
});

after(async () => {
  await mon.dispose();
  providerServer.closeAllConnections();
  await new Promise((resolve) => providerServer.close(resolve));
});

type GrantLike = { addOIDCScope(scope: string): void; save(): Promise<string> };

/** A browser's cookie jar for the provider (paths ignored: it is one small origin). */
class Jar {
  private readonly cookies = new Map<string, string>();
  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      this.cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

/** Drives the provider from an authorization URL to the redirect back to mon; returns that URL. */
async function loginAtProvider(authorizationUrl: string, account: string): Promise<URL> {
  const jar = new Jar();
  let url = new URL(authorizationUrl);
  for (let step = 0; step < 10; step++) {
    if (url.href.startsWith(monUrl)) return url;
    let response: Response;
    if (url.pathname.startsWith('/interaction/')) {
      response = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login: account, password: 'any' }),
      });
    } else {
      response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    }
    jar.take(response);
    const location = response.headers.get('location');
    assert.ok(location, `expected a redirect from ${url.pathname}, got ${response.status}`);
    await response.arrayBuffer();
    url = new URL(location, url);
  }
  throw new Error('the provider did not send the browser back');
}

/** Each browser of the tests has its own address, so the sign-in attempt limit stays out of the way. */
let browsers = 0;
const browserAddress = () => `192.0.2.${++browsers}`;

function sessionCookieOf(setCookie: string | string[] | undefined): string {
  const lines = Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : [];
  return lines.find((l) => l.startsWith('mon_session='))?.split(';')[0] ?? '';
}

async function start(): Promise<{ location: string; flowCookie: string }> {
  const res = await mon.app.inject({ url: '/api/v1/auth/oidc/test' });
  assert.equal(res.statusCode, 302);
  const setCookie = String(res.headers['set-cookie']);
  assert.match(
    setCookie,
    /^mon_oidc=[^;]+; Max-Age=600; Path=\/api\/v1\/auth\/oidc\/; HttpOnly; SameSite=Lax$/,
  );
  return { location: String(res.headers.location), flowCookie: setCookie.split(';')[0]! };
}

async function signIn(account: string) {
  const { location, flowCookie } = await start();
  const authorization = new URL(location);
  assert.equal(authorization.origin, issuer);
  assert.equal(authorization.searchParams.get('code_challenge_method'), 'S256');
  assert.ok(authorization.searchParams.get('state'));
  assert.ok(authorization.searchParams.get('nonce'));
  assert.equal(authorization.searchParams.get('redirect_uri'), redirectUri);
  const back = await loginAtProvider(location, account);
  const callback = await mon.app.inject({
    url: back.pathname + back.search,
    headers: { cookie: flowCookie },
    remoteAddress: browserAddress(),
  });
  return { callback, back, flowCookie };
}

test('a listed domain signs in as a viewer, a listed admin as an admin', async () => {
  const { callback } = await signIn('ann@example.com');
  assert.equal(callback.statusCode, 302);
  assert.equal(callback.headers.location, '/');
  const cookie = sessionCookieOf(callback.headers['set-cookie']);
  assert.match(cookie, /^mon_session=/);
  const me = await mon.app.inject({ url: '/api/v1/auth/me', headers: { cookie } });
  assert.equal(me.statusCode, 200);
  assert.equal(me.json().email, 'ann@example.com');
  assert.equal(me.json().role, 'viewer');

  const boss = await signIn('boss@example.com');
  const bossCookie = sessionCookieOf(boss.callback.headers['set-cookie']);
  assert.equal(
    (await mon.app.inject({ url: '/api/v1/auth/me', headers: { cookie: bossCookie } })).json().role,
    'admin',
  );

  const guest = await signIn('guest@other.org');
  assert.equal(guest.callback.statusCode, 302);

  // The accounts are kept, marked as made by this provider.
  const users = (await mon.app.inject({ url: '/api/v1/users', headers: { cookie: bossCookie } })).json()
    .users;
  const ann = users.find((u: { email: string }) => u.email === 'ann@example.com');
  assert.equal(ann.source, 'oidc:test');
  assert.equal(ann.hasPassword, false);
  const created = securityLines('user.created').filter((line) => line.email === 'ann@example.com');
  assert.deepEqual(
    created.map((line) => [line.role, line.source]),
    [['viewer', 'oidc:test']],
  );
});

test('addresses the provider rules do not admit are refused', async () => {
  const { callback } = await signIn('eve@evil.org');
  assert.equal(callback.statusCode, 403);
  assert.equal(callback.json().detail, 'this account may not sign in');
  assert.equal(sessionCookieOf(callback.headers['set-cookie']), '');

  const unverified = await signIn('unverified@example.com');
  assert.equal(unverified.callback.statusCode, 403);
  // No email_verified claim at all is not taken as verified.
  const unmarked = await signIn('unmarked@example.com');
  assert.equal(unmarked.callback.statusCode, 403);
  assert.equal(unmarked.callback.json().detail, 'the provider has not verified this email address');
  const failed = securityLines('signin.failed').map((line) => [line.email, line.method, line.reason]);
  assert.deepEqual(failed.slice(-3), [
    ['eve@evil.org', 'oidc:test', 'not admitted'],
    ['unverified@example.com', 'oidc:test', 'email address not verified'],
    ['unmarked@example.com', 'oidc:test', 'email address not verified'],
  ]);
});

test('an account an admin made in mon may sign in through the provider', async () => {
  await mon.addUser('friend@elsewhere.net', 'viewer');
  const { callback } = await signIn('friend@elsewhere.net');
  assert.equal(callback.statusCode, 302);
});

test('state is checked, and a callback cannot be replayed or finished without its flow', async () => {
  const { callback, back, flowCookie } = await signIn('ann@example.com');
  assert.equal(callback.statusCode, 302);
  const replay = await mon.app.inject({
    url: back.pathname + back.search,
    headers: { cookie: flowCookie },
    remoteAddress: browserAddress(),
  });
  assert.equal(replay.statusCode, 400);
  const noFlow = await mon.app.inject({ url: back.pathname + back.search, remoteAddress: browserAddress() });
  assert.equal(noFlow.statusCode, 400);

  const { location, flowCookie: second } = await start();
  const returned = await loginAtProvider(location, 'ann@example.com');
  returned.searchParams.set('state', 'forged');
  const forged = await mon.app.inject({
    url: returned.pathname + returned.search,
    headers: { cookie: second },
    remoteAddress: browserAddress(),
  });
  assert.equal(forged.statusCode, 403);
});

test('unknown providers are 404', async () => {
  assert.equal((await mon.app.inject({ url: '/api/v1/auth/oidc/nope' })).statusCode, 404);
  assert.equal(
    (await mon.app.inject({ url: '/api/v1/auth/oidc/nope/callback', remoteAddress: browserAddress() }))
      .statusCode,
    404,
  );
});

test('a reload that stops admitting a person, or removes the provider, ends their sessions', async () => {
  const { callback } = await signIn('ann@example.com');
  const cookie = sessionCookieOf(callback.headers['set-cookie']);
  const me = () => mon.app.inject({ url: '/api/v1/auth/me', headers: { cookie } });
  const saved = liveAuth;
  try {
    liveAuth = authConfigSchema.parse({ oidc: [providerConfig({ admins: ['ann@example.com'] })] });
    assert.equal((await me()).json().role, 'admin', 'the admins list applies at once');
    liveAuth = authConfigSchema.parse({ oidc: [providerConfig({ allowed_domains: [] })] });
    assert.equal((await me()).statusCode, 401);
    liveAuth = authConfigSchema.parse({});
    assert.equal((await me()).statusCode, 401);
    liveAuth = saved;
    assert.equal((await me()).json().role, 'viewer');
  } finally {
    liveAuth = saved;
  }
});
