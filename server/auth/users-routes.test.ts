import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { UsersList, UserView } from '../../protocol/accounts.ts';
import { type AuthTestServer, authTestServer, browser } from './test-helpers.ts';

const password = 'a good long password';

async function withAdmin(fn: (s: AuthTestServer, admin: string, cookie: string) => Promise<void>) {
  const server = await authTestServer();
  try {
    const admin = await server.addUser('ann@example.com', 'admin', password);
    await fn(server, admin, await server.cookieOf(admin));
  } finally {
    await server.dispose();
  }
}

test('admins add, list, change and remove accounts', () =>
  withAdmin(async (server, _admin, cookie) => {
    const { app } = server;
    const add = (payload: object) =>
      app.inject({ method: 'POST', url: '/api/v1/users', headers: browser(cookie), payload });
    const made = await add({ email: 'Bob@Example.com', role: 'viewer', password });
    assert.equal(made.statusCode, 201);
    const bob = made.json<UserView>();
    assert.equal(bob.email, 'bob@example.com');
    assert.equal(bob.role, 'viewer');
    assert.equal(bob.source, 'admin');
    assert.equal(bob.hasPassword, true);
    assert.match(bob.id, /^[0-9a-f]{16}$/);
    assert.equal((await add({ email: 'bob@example.com', role: 'admin', password })).statusCode, 409);
    assert.equal(
      (await add({ email: 'bob', role: 'viewer', password })).json().detail,
      'email: must be an email address',
    );
    assert.equal(
      (await add({ email: 'c@example.com', role: 'owner', password })).json().detail,
      'role: must be admin or viewer',
    );
    assert.equal((await add({ email: 'c@example.com', role: 'viewer', password: 'short' })).statusCode, 422);
    assert.equal((await add({ email: 'c@example.com', role: 'viewer', password, extra: 1 })).statusCode, 422);
    const sso = await add({ email: 'sso@example.com', role: 'viewer' });
    assert.equal(sso.statusCode, 201);
    assert.equal(sso.json<UserView>().hasPassword, false);

    const list = await app.inject({ url: '/api/v1/users', headers: { cookie } });
    assert.deepEqual(
      list.json<UsersList>().users.map((u) => u.email),
      ['ann@example.com', 'bob@example.com', 'sso@example.com'],
    );
    assert.ok(!list.body.includes('argon2'), 'password hashes never leave');

    // Bob signs in; promoting him keeps his session and makes it an admin session.
    const login = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: 'bob@example.com', password },
    });
    const bobCookie = String(login.headers['set-cookie']).split(';')[0]!;
    const put = (id: string, payload: object) =>
      app.inject({ method: 'PUT', url: `/api/v1/users/${id}`, headers: browser(cookie), payload });
    assert.equal((await put(bob.id, { role: 'admin' })).json<UserView>().role, 'admin');
    assert.equal(
      (await app.inject({ url: '/api/v1/auth/me', headers: { cookie: bobCookie } })).json().role,
      'admin',
    );
    assert.equal((await put(bob.id, { role: 'viewer' })).statusCode, 200);
    assert.equal((await put(bob.id, {})).statusCode, 422);
    assert.equal((await put('0123456789abcdef', { role: 'viewer' })).statusCode, 404);
    assert.equal((await put('nope', { role: 'viewer' })).statusCode, 404);

    // An admin-set password ends the person's sessions.
    assert.equal((await put(bob.id, { password: 'another good password' })).statusCode, 200);
    assert.equal(
      (await app.inject({ url: '/api/v1/auth/me', headers: { cookie: bobCookie } })).statusCode,
      401,
    );

    // Removing an account ends its sessions.
    const bobAgain = await server.cookieOf(bob.id);
    const del = await app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${bob.id}`,
      headers: browser(cookie),
    });
    assert.equal(del.statusCode, 204);
    assert.equal(
      (await app.inject({ url: '/api/v1/auth/me', headers: { cookie: bobAgain } })).statusCode,
      401,
    );
    const again = await app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${bob.id}`,
      headers: browser(cookie),
    });
    assert.equal(again.statusCode, 404);
  }));

test('at least one admin always stays', () =>
  withAdmin(async (server, admin, cookie) => {
    const { app } = server;
    const demote = await app.inject({
      method: 'PUT',
      url: `/api/v1/users/${admin}`,
      headers: browser(cookie),
      payload: { role: 'viewer' },
    });
    assert.equal(demote.statusCode, 409);
    const remove = await app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${admin}`,
      headers: browser(cookie),
    });
    assert.equal(remove.statusCode, 409);

    // With a second admin, the first may step down, and then remove themselves... not the last one.
    const second = await server.addUser('bea@example.com', 'admin');
    const ok = await app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${admin}`,
      headers: browser(cookie),
    });
    assert.equal(ok.statusCode, 204);
    const beaCookie = await server.cookieOf(second);
    const last = await app.inject({
      method: 'DELETE',
      url: `/api/v1/users/${second}`,
      headers: browser(beaCookie),
    });
    assert.equal(last.statusCode, 409);
  }));

test('viewers cannot manage accounts', () =>
  withAdmin(async (server) => {
    const viewer = await server.cookieOf(await server.addUser('vic@example.com', 'viewer', password));
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/users',
      headers: browser(viewer),
      payload: { email: 'x@example.com', role: 'admin', password },
    });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().title, 'only admins can do this');
  }));
