import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { CreatedToken, TokensList } from '../../protocol/accounts.ts';
import { FakeClock } from '../clock.ts';
import { authTestServer, browser } from './test-helpers.ts';

test('tokens: created by an admin session, shown once, listed without secret, last use kept, revoked', async () => {
  const clock = new FakeClock();
  const server = await authTestServer({ clock });
  const { app } = server;
  try {
    const cookie = await server.cookieOf(await server.addUser('ann@example.com', 'admin'));
    const made = await app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: browser(cookie),
      payload: { scope: 'read', label: ' CI reader ' },
    });
    assert.equal(made.statusCode, 201);
    const token = made.json<CreatedToken>();
    assert.match(token.token, /^mon_[A-Za-z0-9_-]{43}$/);
    assert.equal(token.scope, 'read');
    assert.equal(token.label, 'CI reader');
    assert.equal(token.createdAt, clock.now());
    assert.equal(token.lastUsedAt, null);

    // Stored as SHA-256 only.
    const stored = server.deps.store.read.prepare('SELECT * FROM tokens').all() as Record<string, unknown>[];
    assert.ok(!JSON.stringify(stored).includes(token.token.slice(4)));

    await clock.advance(5000);
    const used = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token.token}` } });
    assert.equal(used.statusCode, 200);
    await server.deps.store.writer.flush();
    const list = await app.inject({ url: '/api/v1/tokens', headers: { cookie } });
    assert.deepEqual(list.json(), {
      tokens: [
        {
          id: token.id,
          scope: 'read',
          label: 'CI reader',
          createdAt: token.createdAt,
          lastUsedAt: clock.now(),
        },
      ],
    } satisfies TokensList);

    const del = await app.inject({
      method: 'DELETE',
      url: `/api/v1/tokens/${token.id}`,
      headers: browser(cookie),
    });
    assert.equal(del.statusCode, 204);
    const after = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token.token}` } });
    assert.equal(after.statusCode, 401);
    const again = await app.inject({
      method: 'DELETE',
      url: `/api/v1/tokens/${token.id}`,
      headers: browser(cookie),
    });
    assert.equal(again.statusCode, 404);
  } finally {
    await server.dispose();
  }
});

test('token bodies are checked; every scope of the spec can be created', async () => {
  const server = await authTestServer();
  const { app } = server;
  try {
    const cookie = await server.cookieOf(await server.addUser('ann@example.com', 'admin'));
    const post = (payload: object) =>
      app.inject({ method: 'POST', url: '/api/v1/tokens', headers: browser(cookie), payload });
    assert.equal(
      (await post({ scope: 'root', label: 'x' })).json().detail,
      'scope: must be one of read, write, deploy, mcp, ping, agent',
    );
    assert.equal((await post({ scope: 'read', label: '' })).json().detail, 'label: must not be empty');
    assert.equal((await post({ scope: 'read' })).statusCode, 422);
    for (const scope of ['read', 'write', 'deploy', 'mcp', 'ping', 'agent']) {
      assert.equal((await post({ scope, label: scope })).statusCode, 201);
    }
  } finally {
    await server.dispose();
  }
});
