import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.ts';
import { type AuthTestServer, authTestServer, browser } from '../auth/test-helpers.ts';
import { tempDir } from '../testing.ts';

const themeScript = "\n      document.documentElement.dataset.theme = 'dark';\n    ";
const otherScript = 'window.second = true;';
const panel = tempDir('mon-panel-');

let server: AuthTestServer;
let app: FastifyInstance;

before(async () => {
  server = await authTestServer();
  mkdirSync(join(panel.dir, 'assets'));
  writeFileSync(
    join(panel.dir, 'index.html'),
    `<!doctype html><html><head><script>${themeScript}</script>` +
      `<script type="module" src="/assets/app.js"></script><script>${otherScript}</script></head></html>`,
  );
  writeFileSync(join(panel.dir, 'assets', 'app.js'), 'console.log(1)');
  app = buildApp(server.deps, {
    authenticate: server.accounts.authenticate,
    panelDir: panel.dir,
    features: [
      {
        name: 'test',
        routes(a) {
          // Paths of the access table (term `none`), with headers of their own.
          a.get(
            '/api/v1/auth',
            {
              config: {
                headers: {
                  'content-security-policy': "default-src 'none'; frame-ancestors https://status.example",
                  'referrer-policy': null,
                },
              },
            },
            async (request, reply) => {
              if ('fail' in (request.query as object)) throw new Error('fails');
              return reply.header('cache-control', 'public, max-age=60').send({ ok: true });
            },
          );
        },
      },
    ],
  });
  await app.ready();
});

after(async () => {
  await app.close();
  await server.dispose();
  panel.remove();
});

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

function directives(policy: unknown): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of String(policy).split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) map.set(name, values);
  }
  return map;
}

test('every answer says nosniff and same-origin referrers: panel, assets, API, errors, health', async () => {
  const token = await server.tokenOf('read');
  const answers = [
    await app.inject({ url: '/' }),
    await app.inject({ url: '/checks/abc' }),
    await app.inject({ url: '/assets/app.js' }),
    await app.inject({ url: '/assets/missing.js' }),
    await app.inject({ url: '/api/v1/nope' }),
    await app.inject({ url: '/api/v1/checks/%E0%A4%A' }),
    await server.app.inject({ url: '/api/v1/services' }),
    await server.app.inject({ url: '/api/v1/services', headers: { authorization: `Bearer ${token}` } }),
    await server.app.inject({ url: '/healthz' }),
    await server.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } }),
  ];
  for (const r of answers) {
    const what = `${r.statusCode} ${r.headers['content-type']}`;
    assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
    assert.equal(r.headers['referrer-policy'], 'same-origin', what);
    assert.match(String(r.headers['content-security-policy']), /frame-ancestors 'none'/, what);
  }
});

test("the panel's policy frames nothing and runs only the index's own inline scripts, by hash", async () => {
  const page = await app.inject({ url: '/settings' });
  assert.equal(page.statusCode, 200);
  const policy = directives(page.headers['content-security-policy']);
  assert.deepEqual(policy.get('frame-ancestors'), ["'none'"]);
  assert.deepEqual(policy.get('script-src'), ["'self'", sha256(themeScript), sha256(otherScript)]);
  assert.deepEqual(policy.get('object-src'), ["'none'"]);
  assert.deepEqual(policy.get('base-uri'), ["'none'"]);
  for (const [name, values] of policy) {
    assert.ok(!values.includes("'unsafe-inline'") && !values.includes("'unsafe-eval'"), name);
  }
  // The index itself is revalidated, not kept: the policy and the page always match.
  assert.equal(page.headers['cache-control'], 'no-cache');

  // The hash follows the file the app is built with.
  const edited = tempDir('mon-panel-');
  writeFileSync(join(edited.dir, 'index.html'), '<script>window.edited = 1</script>');
  const other = buildApp(server.deps, { authenticate: async () => null, features: [], panelDir: edited.dir });
  const r = await other.inject({ url: '/' });
  await other.close();
  edited.remove();
  assert.deepEqual(directives(r.headers['content-security-policy']).get('script-src'), [
    "'self'",
    sha256('window.edited = 1'),
  ]);
});

test('JSON and signed-in answers are not stored by caches; assets keep their year', async () => {
  const viewer = await server.addUser('cache@example.com', 'viewer');
  const cookie = await server.cookieOf(viewer);
  const token = await server.tokenOf('read');
  const me = await server.app.inject({ url: '/api/v1/auth/me', headers: { cookie } });
  assert.equal(me.statusCode, 200);
  assert.equal(me.headers['cache-control'], 'no-store');
  const services = await server.app.inject({
    url: '/api/v1/services',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(services.headers['cache-control'], 'no-store');
  const metrics = await server.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
  assert.match(String(metrics.headers['content-type']), /^text\/plain/);
  assert.equal(metrics.headers['cache-control'], 'no-store');
  const refused = await server.app.inject({
    method: 'POST',
    url: '/api/v1/checks',
    headers: browser(cookie),
    payload: {},
  });
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.headers['cache-control'], 'no-store');
  const asset = await app.inject({ url: '/assets/app.js' });
  assert.match(String(asset.headers['cache-control']), /max-age=31536000, immutable/);
});

test("a route's own headers replace mon's: configured ones on every answer, set ones kept", async () => {
  const ok = await app.inject({ url: '/api/v1/auth' });
  assert.equal(ok.statusCode, 200);
  assert.equal(
    ok.headers['content-security-policy'],
    "default-src 'none'; frame-ancestors https://status.example",
  );
  assert.equal(ok.headers['referrer-policy'], undefined);
  assert.equal(ok.headers['cache-control'], 'public, max-age=60');
  assert.equal(ok.headers['x-content-type-options'], 'nosniff');
  // Its error answers carry the route's policy too, and mon's no-store.
  const failed = await app.inject({ url: '/api/v1/auth?fail' });
  assert.equal(failed.statusCode, 500);
  assert.equal(
    failed.headers['content-security-policy'],
    "default-src 'none'; frame-ancestors https://status.example",
  );
  assert.equal(failed.headers['referrer-policy'], undefined);
  assert.equal(failed.headers['cache-control'], 'no-store');
});
