import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type AppOptions, bodyLimits, buildApp } from './app.ts';
import { invalid, unavailable } from './problem.ts';
import { createTestServer, type TestServer, tempDir } from './testing.ts';

/** App options with one test feature: its routes and its health. */
function withRoutes(
  routes: (app: FastifyInstance) => void,
  health: () => string | null = () => null,
): AppOptions {
  return { authenticate: async () => null, features: [{ name: 'test', routes, health }] };
}

let server: TestServer;
let app: FastifyInstance;
const panel = tempDir('mon-panel-');

before(async () => {
  server = await createTestServer();
  mkdirSync(join(panel.dir, 'assets'));
  writeFileSync(join(panel.dir, 'index.html'), '<!doctype html><title>panel</title>');
  writeFileSync(join(panel.dir, 'assets', 'app-1a2b3c.js'), 'console.log(1)');
  // Test routes under paths of the access table whose term is `none`, so no credentials are needed.
  app = buildApp(server.deps, {
    ...withRoutes((a) => {
      a.post('/api/v1/auth/login', async (request) => {
        const kind = (request.body as { fail?: string }).fail;
        if (kind === 'zod') z.strictObject({ email: z.string().email() }).parse({ email: 'nope' });
        if (kind === 'problem') throw invalid('password', 'must be at least 12 characters');
        if (kind === 'busy') throw unavailable(3, 'the write queue is full');
        if (kind === 'crash') throw new Error('secret internal detail at /srv/x.ts:12');
        return { ok: true };
      });
    }),
    panelDir: panel.dir,
  });
  await app.ready();
});

after(async () => {
  await app.close();
  await server.dispose();
  panel.remove();
});

function problemOf(response: { headers: Record<string, unknown>; json: () => unknown }) {
  assert.match(String(response.headers['content-type']), /^application\/problem\+json/);
  return response.json() as { type: string; status: number; title: string; detail?: string };
}

test('a ZodError answers 422 naming the field', async () => {
  const r = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { fail: 'zod' } });
  assert.equal(r.statusCode, 422);
  const p = problemOf(r);
  assert.equal(p.type, 'about:blank');
  assert.equal(p.status, 422);
  assert.match(p.detail ?? '', /^email: /);
});

test('a thrown Problem keeps its status, title and detail', async () => {
  const r = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { fail: 'problem' } });
  assert.equal(r.statusCode, 422);
  assert.equal(problemOf(r).detail, 'password: must be at least 12 characters');
});

test('503 carries Retry-After', async () => {
  const r = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { fail: 'busy' } });
  assert.equal(r.statusCode, 503);
  assert.equal(r.headers['retry-after'], '3');
  problemOf(r);
});

test('500 never leaks the error or a stack', async () => {
  const r = await app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { fail: 'crash' } });
  assert.equal(r.statusCode, 500);
  const p = problemOf(r);
  assert.equal(p.title, 'internal error');
  assert.doesNotMatch(r.body, /secret|srv|\.ts/);
});

test('unreadable JSON answers 400 and a body over the limit 413', async () => {
  const bad = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: '{"email":',
  });
  assert.equal(bad.statusCode, 400);
  problemOf(bad);
  const big = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'content-type': 'application/json' },
    payload: JSON.stringify({ pad: 'x'.repeat(1024 * 1024 + 1) }),
  });
  assert.equal(big.statusCode, 413);
  problemOf(big);
});

test('JSON nested deeper than 32 levels answers 400 before it is parsed; strings do not count', async () => {
  const post = (payload: string) =>
    app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      headers: { 'content-type': 'application/json' },
      payload,
    });
  // 1 MiB of brackets: about a second of the event loop for JSON.parse.
  const n = 512 * 1024 - 8;
  const deep = await post(`{"a":${'['.repeat(n)}${']'.repeat(n)}}`);
  assert.equal(deep.statusCode, 400);
  assert.deepEqual(problemOf(deep), {
    type: 'about:blank',
    status: 400,
    title: 'bad request',
    detail: 'the body nests arrays and objects deeper than 32 levels',
  });
  // 32 levels are taken (an object, then arrays), and brackets and quotes inside strings are text.
  const levels = (depth: number) => JSON.parse(`${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}`);
  const text = `a"[{\\"${'['.repeat(100)}\\`;
  const at = await post(JSON.stringify({ a: levels(32), b: text, c: [text] }));
  assert.equal(at.statusCode, 200, at.body);
  assert.equal((await post(JSON.stringify({ a: levels(33) }))).statusCode, 400);
  assert.equal((await post('{"email":')).json().detail, 'the body is not valid JSON');
});

test('unknown paths under reserved prefixes answer 404 problem+json', async () => {
  for (const path of [
    '/api',
    '/api/v1/nope',
    '/agent/v1/x',
    '/auth/x',
    '/e',
    '/ping/x/y/z',
    '/hooks/x',
    '/mcp/x',
  ]) {
    const r = await app.inject({ method: 'GET', url: path });
    assert.equal(r.statusCode, 404, path);
    assert.equal(problemOf(r).status, 404);
  }
});

test('other unknown paths serve the panel index without caching it', async () => {
  for (const path of ['/', '/checks/abc', '/settings?tab=users', '/events', '/apis']) {
    const r = await app.inject({ method: 'GET', url: path });
    assert.equal(r.statusCode, 200, path);
    assert.match(String(r.headers['content-type']), /text\/html/);
    assert.equal(r.body, '<!doctype html><title>panel</title>');
    assert.equal(r.headers['cache-control'], 'no-cache');
  }
});

test('assets are served with a one-year immutable cache; a missing asset is a 404', async () => {
  const r = await app.inject({ method: 'GET', url: '/assets/app-1a2b3c.js' });
  assert.equal(r.statusCode, 200);
  assert.match(String(r.headers['cache-control']), /max-age=31536000/);
  assert.match(String(r.headers['cache-control']), /immutable/);
  const missing = await app.inject({ method: 'GET', url: '/assets/nope.js' });
  assert.equal(missing.statusCode, 404);
});

test('a route missing from the access table refuses to register', async () => {
  assert.throws(
    () =>
      buildApp(
        server.deps,
        withRoutes((a) => a.get('/api/v1/rogue', async () => 'x')),
      ),
    /missing from the access table/,
  );
});

test('healthz answers ok, or 503 with the reason', async () => {
  const ok = await server.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(ok.statusCode, 200);
  assert.equal(ok.body, 'ok');
  const sick = buildApp(
    server.deps,
    withRoutes(
      () => {},
      () => 'check engine not running',
    ),
  );
  const down = await sick.inject({ method: 'GET', url: '/healthz' });
  await sick.close();
  assert.equal(down.statusCode, 503);
  assert.equal(down.body, 'check engine not running');
  assert.ok(down.headers['retry-after']);
});

test('healthz reports a database that cannot be written', async () => {
  // Writes wait up to 1 s for the lock: a health check that waited too would be told apart on a busy machine.
  const locked = await createTestServer({ store: { maxWaitMs: 1000 } });
  const other = new DatabaseSync(join(locked.dataDir, 'mon.db'));
  other.exec('BEGIN IMMEDIATE');
  // A write waits for the lock without blocking the event loop, then answers 503.
  const started = Date.now();
  await assert.rejects(
    locked.deps.store.writer.run((db) => db.exec('CREATE TABLE t (x)')),
    {
      status: 503,
    },
  );
  assert.ok(Date.now() - started < 3000);
  // Held for over a second: health says so, at once.
  await new Promise((r) => setTimeout(r, 1000));
  const asked = Date.now();
  const r = await locked.app.inject({ method: 'GET', url: '/healthz' });
  assert.ok(Date.now() - asked < 500, 'healthz answers without waiting for the lock');
  assert.equal(r.statusCode, 503);
  assert.match(r.body, /^database not writable/);
  other.exec('ROLLBACK');
  await locked.deps.store.writer.run((db) => db.exec('CREATE TABLE t (x)'));
  const healed = await locked.app.inject({ method: 'GET', url: '/healthz' });
  assert.equal(healed.statusCode, 200);
  other.close();
  await locked.dispose();
});

test("a route's own body limit from the limits table answers 413 past it", async () => {
  bodyLimits['POST /api/v1/auth/login'] = 100;
  const limited = buildApp(
    server.deps,
    withRoutes((a) => a.post('/api/v1/auth/login', async () => ({ ok: true }))),
  );
  delete bodyLimits['POST /api/v1/auth/login'];
  const small = await limited.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { pad: 'x'.repeat(50) },
  });
  assert.equal(small.statusCode, 200);
  const large = await limited.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    payload: { pad: 'x'.repeat(200) },
  });
  assert.equal(large.statusCode, 413);
  problemOf(large);
  await limited.close();
});

test('malformed URLs and text bodies answer problem+json', async () => {
  const badUrl = await app.inject({ method: 'GET', url: '/api/v1/checks/%E0%A4%A' });
  assert.equal(badUrl.statusCode, 400);
  problemOf(badUrl);
  const text = await app.inject({
    method: 'POST',
    url: '/api/v1/auth/login',
    headers: { 'content-type': 'text/plain' },
    payload: '{}',
  });
  assert.equal(text.statusCode, 415);
  problemOf(text);
});
