import assert from 'node:assert/strict';
import { test } from 'node:test';
import { staticConfig } from '../config/service.ts';
import type { Log } from '../log.ts';
import { memoryLog } from '../testing.ts';
import { authConfigSchema } from './config.ts';
import { authTestServer } from './test-helpers.ts';

function proxyServer(proxy: object, log?: Log) {
  return authTestServer({
    ...(log ? { log } : {}),
    config: staticConfig({
      server: { url: null, trustedProxies: ['10.0.0.0/8', 'fd00::/8'] },
      auth: authConfigSchema.parse({ proxy }),
    }),
  });
}

test('forward auth: identity headers from a trusted proxy sign the person in; from others they are ignored', async () => {
  const memory = memoryLog();
  const server = await proxyServer({ admin_groups: ['ops'], admins: ['boss@example.com'] }, memory.log);
  const me = (remoteAddress: string, headers: Record<string, string>) =>
    server.app.inject({ url: '/api/v1/auth/me', remoteAddress, headers });
  try {
    const viewer = await me('10.1.2.3', { 'remote-email': 'Ann@Example.com', 'remote-groups': 'dev, qa' });
    assert.equal(viewer.statusCode, 200);
    assert.deepEqual(
      { ...(viewer.json() as object), id: undefined },
      {
        id: undefined,
        email: 'ann@example.com',
        role: 'viewer',
        via: 'proxy',
      },
    );
    assert.equal((await me('203.0.113.5', { 'remote-email': 'ann@example.com' })).statusCode, 401);
    assert.equal((await me('fd00::7', { 'remote-email': 'ann@example.com' })).statusCode, 200);
    assert.equal(
      (await me('10.1.2.3', { 'remote-email': 'ann@example.com', 'remote-groups': 'dev,ops' })).json().role,
      'admin',
    );
    assert.equal((await me('10.1.2.3', { 'remote-email': 'boss@example.com' })).json().role, 'admin');
    assert.equal((await me('10.1.2.3', { 'remote-email': 'not an address' })).statusCode, 403);

    // The account is made on first sight, so admins can see it, promote it or remove it.
    const admin = await server.cookieOf(await server.addUser('root@example.com', 'admin'));
    const users = (await server.app.inject({ url: '/api/v1/users', headers: { cookie: admin } })).json()
      .users;
    const ann = users.find((u: { email: string }) => u.email === 'ann@example.com');
    assert.equal(ann.source, 'proxy');
    assert.equal(ann.role, 'viewer');
    assert.equal(ann.hasPassword, false);
    const created = memory.lines().filter((line) => line.security === 'user.created');
    assert.deepEqual(
      created.map((line) => [line.email, line.role, line.source, line.address]),
      [
        ['ann@example.com', 'viewer', 'proxy', '10.1.2.3'],
        ['boss@example.com', 'viewer', 'proxy', '10.1.2.3'],
      ],
    );

    // Proxy writes need the Origin like cookie writes.
    const write = (origin?: string) =>
      server.app.inject({
        method: 'POST',
        url: '/api/v1/auth/logout',
        remoteAddress: '10.1.2.3',
        headers: { 'remote-email': 'ann@example.com', ...(origin ? { origin } : {}) },
      });
    assert.equal((await write()).statusCode, 403);
    assert.equal((await write('http://localhost')).statusCode, 204);
  } finally {
    await server.dispose();
  }
});

test('forward auth: configurable header names and allowed addresses', async () => {
  const server = await proxyServer({
    email_header: 'X-Auth-Email',
    groups_header: 'X-Auth-Groups',
    admin_groups: ['admins'],
    allowed_domains: ['example.com'],
    allowed_emails: ['guest@other.org'],
  });
  const me = (headers: Record<string, string>) =>
    server.app.inject({ url: '/api/v1/auth/me', remoteAddress: '10.0.0.2', headers });
  try {
    assert.equal(
      (await me({ 'remote-email': 'ann@example.com' })).statusCode,
      401,
      'default names are not read',
    );
    assert.equal((await me({ 'x-auth-email': 'ann@example.com' })).statusCode, 200);
    assert.equal((await me({ 'x-auth-email': 'guest@other.org' })).statusCode, 200);
    const denied = await me({ 'x-auth-email': 'mallory@evil.org' });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().detail, 'this account may not sign in');
    // Membership of an admin group admits too.
    assert.equal(
      (await me({ 'x-auth-email': 'op@evil.org', 'x-auth-groups': 'admins' })).json().role,
      'admin',
    );
    // On open routes a refused identity is simply nobody.
    const auth = await server.app.inject({
      url: '/api/v1/auth',
      remoteAddress: '10.0.0.2',
      headers: { 'x-auth-email': 'mallory@evil.org' },
    });
    assert.equal(auth.statusCode, 200);
    assert.equal(auth.json().user, null);
    assert.equal(auth.json().proxy, true);
  } finally {
    await server.dispose();
  }
});

test('forward auth is off without [auth.proxy], even from a trusted proxy', async () => {
  const server = await authTestServer({
    config: staticConfig({ server: { url: null, trustedProxies: ['127.0.0.1'] } }),
  });
  try {
    const res = await server.app.inject({
      url: '/api/v1/auth/me',
      headers: { 'remote-email': 'ann@example.com' },
    });
    assert.equal(res.statusCode, 401);
  } finally {
    await server.dispose();
  }
});
