import assert from 'node:assert/strict';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AuthState, AuthUser, Me } from '../../protocol/accounts.ts';
import { silentLog } from '../log.ts';
import { createServer } from '../start.ts';
import { tempDir } from '../testing.ts';
import { authTestServer } from './test-helpers.ts';

const password = 'a good long password';

function cookieFrom(setCookie: string | string[] | undefined): string {
  const line = Array.isArray(setCookie) ? setCookie[0]! : setCookie!;
  return line.split(';')[0]!;
}

test('setup: the generated token creates the first admin once, then is spent', async () => {
  const { dir, remove } = tempDir();
  const logged: Record<string, unknown>[] = [];
  const log = { ...silentLog, info: (_m: string, f?: Record<string, unknown>) => void logged.push(f ?? {}) };
  try {
    let server = await createServer({ dataDir: dir, configPath: join(dir, 'mon.toml'), env: {}, log });
    const file = join(dir, 'setup-token');
    const token = readFileSync(file, 'utf8').trim();
    assert.equal(statSync(file).mode & 0o777, 0o600);
    // The log says where the token is; main.ts prints the token itself (setup-notice.test.ts).
    assert.ok(logged.some((f) => f.file === file));
    assert.ok(!JSON.stringify(logged).includes(token), 'the token stays out of the log');
    const { app } = server;

    assert.equal((await app.inject({ url: '/api/v1/auth' })).json().needsSetup, true);
    const bad = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { token: 'wrong', email: 'ann@example.com', password },
    });
    assert.equal(bad.statusCode, 403);
    const short = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { token, email: 'ann@example.com', password: 'short' },
    });
    assert.equal(short.statusCode, 422);
    assert.equal(short.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(short.json().detail, 'password: must be at least 10 characters');
    const noEmail = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { token, email: 'ann', password },
    });
    assert.equal(noEmail.json().detail, 'email: must be an email address');

    const ok = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { token, email: ' Ann@Example.com ', password },
    });
    assert.equal(ok.statusCode, 201);
    assert.deepEqual(
      { ...ok.json<AuthUser>(), id: undefined },
      { id: undefined, email: 'ann@example.com', role: 'admin' },
    );
    const cookie = cookieFrom(ok.headers['set-cookie']);
    assert.equal(
      (await app.inject({ url: '/api/v1/auth/me', headers: { cookie } })).json<Me>().role,
      'admin',
    );
    assert.equal(existsSync(file), false, 'the spent token file is removed');
    const auth = (await app.inject({ url: '/api/v1/auth', headers: { cookie } })).json<AuthState>();
    assert.equal(auth.needsSetup, false);
    assert.equal(auth.user?.email, 'ann@example.com');

    const again = await app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { token, email: 'eve@example.com', password },
    });
    assert.equal(again.statusCode, 409);
    await server.close();

    // A restart makes no new token.
    server = await createServer({ dataDir: dir, configPath: join(dir, 'mon.toml'), env: {}, log });
    assert.equal(existsSync(file), false);
    assert.equal((await server.app.inject({ url: '/api/v1/auth' })).json().needsSetup, false);
    await server.close();
  } finally {
    remove();
  }
});

test('setup: MON_SETUP_TOKEN is used instead of a generated one', async () => {
  const server = await authTestServer({ env: { MON_SETUP_TOKEN: 'operator-chosen-token' } });
  try {
    assert.equal(existsSync(join(server.dataDir, 'setup-token')), false);
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/auth/setup',
      payload: { token: 'operator-chosen-token', email: 'ann@example.com', password },
    });
    assert.equal(res.statusCode, 201);
  } finally {
    await server.dispose();
  }
});
