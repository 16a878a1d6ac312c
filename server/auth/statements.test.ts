import assert from 'node:assert/strict';
import type { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { authTestServer, browser } from './test-helpers.ts';

/** Records the SQL of every statement `db` prepares from now on. */
function recordPrepares(db: DatabaseSync): string[] {
  const seen: string[] = [];
  const prepare = db.prepare;
  db.prepare = function (this: DatabaseSync, sql: string) {
    seen.push(sql);
    return prepare.call(this, sql);
  } as DatabaseSync['prepare'];
  return seen;
}

// node:sqlite frees a statement only when its JS object is collected: preparing per request grows the
// process. Accounts, sessions, tokens and setup use the per-connection statement cache instead.
test('account, session and token requests prepare their statements once per connection', async () => {
  const server = await authTestServer();
  try {
    const { app, deps } = server;
    await server.addUser('ann@example.com', 'admin', 'password number 0');
    const prepared = [
      recordPrepares(deps.store.read),
      await deps.store.writer.run((db) => recordPrepares(db)),
    ];
    const auth = () => prepared.flat().filter((sql) => /\b(users|sessions|tokens|meta)\b/.test(sql));

    const round = async (i: number) => {
      const login = await app.inject({
        method: 'POST',
        url: '/api/v1/auth/login',
        payload: { email: 'ann@example.com', password: `password number ${i}` },
      });
      assert.equal(login.statusCode, 200);
      const cookie = String(login.headers['set-cookie']).split(';')[0]!;
      const headers = browser(cookie);
      assert.equal((await app.inject({ url: '/api/v1/auth', headers })).statusCode, 200);
      assert.equal((await app.inject({ url: '/api/v1/users', headers })).statusCode, 200);
      const bob = await server.addUser(`bob${i}@example.com`, 'viewer');
      const url = `/api/v1/users/${bob}`;
      const promote = await app.inject({ method: 'PUT', url, headers, payload: { role: 'admin' } });
      assert.equal(promote.statusCode, 200);
      const reset = await app.inject({
        method: 'PUT',
        url,
        headers,
        payload: { password: 'a new password' },
      });
      assert.equal(reset.statusCode, 200);
      assert.equal((await app.inject({ method: 'DELETE', url, headers })).statusCode, 204);
      const token = await server.tokenOf('read');
      const bearer = { authorization: `Bearer ${token}` };
      assert.equal((await app.inject({ url: '/api/v1/services', headers: bearer })).statusCode, 200);
      assert.equal((await app.inject({ url: '/api/v1/tokens', headers })).statusCode, 200);
      const change = await app.inject({
        method: 'PUT',
        url: '/api/v1/auth/password',
        headers,
        payload: { current: `password number ${i}`, password: `password number ${i + 1}` },
      });
      assert.equal(change.statusCode, 204);
      // A password change ends every session and answers with a new one: sign out of that.
      const renewed = browser(String(change.headers['set-cookie']).split(';')[0]!);
      assert.equal(
        (await app.inject({ method: 'POST', url: '/api/v1/auth/logout', headers: renewed })).statusCode,
        204,
      );
      await deps.store.writer.run(() => {}); // the touches are written after the answers
    };

    await round(0);
    const first = auth().length;
    assert.ok(first > 5, `the first round prepares its statements (${first})`);
    await round(1);
    await round(2);
    assert.deepEqual(auth().slice(first), [], 'later rounds prepare nothing new');
  } finally {
    await server.dispose();
  }
});
