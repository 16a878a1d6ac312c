import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { type Access, accessTable, ownAuthentication, refusal } from '../server/auth/access.ts';
import { type AuthTestServer, authTestServer } from '../server/auth/test-helpers.ts';
import { staticConfig } from '../server/config/service.ts';

/**
 * Walks every route of the access table that the server registers, with no credentials, a token of
 * each scope, a viewer session and an admin session, and checks the access decision of each.
 * A real listening server is used so that streaming routes can be judged by their status line.
 */

const credentials = ['none', 'read', 'write', 'deploy', 'mcp', 'ping', 'agent', 'viewer', 'admin'] as const;
type Credential = (typeof credentials)[number];

type Expectation =
  | { allowed: true }
  | { allowed: false; status: 401 | 403; title?: string }
  | { unaffected: true };

/** SPEC.md's access terms and scope table, written out independently of server/auth/access.ts. */
function expectation(access: Access, credential: Credential): Expectation {
  if (['none', 'setup', 'host', 'ping', 'hmac', 'site'].includes(access)) return { unaffected: true };
  if (credential === 'none') return { allowed: false, status: 401 };
  const allow = { allowed: true } as const;
  const deny = { allowed: false, status: 403 } as const;
  if (credential === 'viewer' || credential === 'admin') {
    if (access === 'session' || access === 'read') return allow;
    if (access === 'write' || access === 'admin') {
      return credential === 'admin'
        ? allow
        : { allowed: false, status: 403, title: 'only admins can do this' };
    }
    return deny; // deploy, mcp: tokens only
  }
  const tokenAllows: Record<string, Credential[]> = {
    read: ['read', 'write'],
    write: ['write'],
    deploy: ['deploy'],
    mcp: ['mcp'],
  };
  return tokenAllows[access]?.includes(credential) ? allow : deny;
}

let server: AuthTestServer;
let port = 0;
let viewerId = '';
let adminId = '';
const tokens = new Map<Credential, string>();

before(async () => {
  // Each request comes through "a proxy" on loopback with its own client address, so per-address
  // limits (sign-in attempts) never interfere with the access decisions under test.
  server = await authTestServer({
    config: staticConfig({ server: { url: null, trustedProxies: ['127.0.0.1'] } }),
  });
  viewerId = await server.addUser('viewer@example.com', 'viewer');
  adminId = await server.addUser('admin@example.com', 'admin');
  for (const scope of ['read', 'write', 'deploy', 'mcp', 'ping', 'agent'] as const) {
    tokens.set(scope, await server.tokenOf(scope));
  }
  await server.app.listen({ host: '127.0.0.1', port: 0 });
  port = (server.app.server.address() as AddressInfo).port;
});

after(async () => {
  await server.dispose();
});

let clientCounter = 0;

async function headersFor(credential: Credential): Promise<Record<string, string>> {
  const n = ++clientCounter;
  const headers: Record<string, string> = {
    'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    origin: `http://127.0.0.1:${port}`,
  };
  // A fresh session per request: a walked logout must not end the next request's session.
  if (credential === 'viewer') headers.cookie = await server.cookieOf(viewerId);
  else if (credential === 'admin') headers.cookie = await server.cookieOf(adminId);
  else if (credential !== 'none') headers.authorization = `Bearer ${tokens.get(credential)}`;
  return headers;
}

/** Status and (for refusals) problem title; the body of other answers is not awaited (streams). */
function call(
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; title?: string }> {
  return new Promise((resolve, reject) => {
    const body = method === 'GET' || method === 'HEAD' ? undefined : '{}';
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: body
          ? { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) }
          : headers,
        timeout: 5000,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 401 && status !== 403) {
          res.destroy();
          resolve({ status });
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () => resolve({ status, title: (JSON.parse(text) as { title: string }).title }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`${method} ${path} timed out`)));
    req.on('error', reject);
    req.end(body);
  });
}

const dummy = '0123456789abcdef';

test('every registered route answers each credential as its access term says', async () => {
  const routes = Object.entries(accessTable as Record<string, Access>)
    .map(([key, access]) => {
      const [method, url] = key.split(' ') as [string, string];
      return { method, url, access };
    })
    .filter((r) => server.app.hasRoute({ method: r.method as 'GET', url: r.url }));
  assert.ok(routes.length >= 15, `only ${routes.length} routes registered`);
  const failures: string[] = [];
  for (const { method, url, access } of routes) {
    const path = url.replace(/:\w+/g, dummy).replace(/\*$/, dummy);
    const baseline = await call(method, path, await headersFor('none'));
    for (const credential of credentials) {
      const got = await call(method, path, await headersFor(credential));
      const want = expectation(access, credential);
      const label = `${method} ${url} (${access}) with ${credential}: got ${got.status} ${got.title ?? ''}`;
      if ('unaffected' in want) {
        if ((got.status === 401 || got.status === 403) && got.status !== baseline.status) {
          failures.push(`${label}, expected the same as without credentials (${baseline.status})`);
        }
      } else if (want.allowed) {
        if (got.status === 401 || got.status === 403) failures.push(`${label}, expected access`);
      } else if (got.status !== want.status || (want.title && got.title !== want.title)) {
        failures.push(`${label}, expected ${want.status} ${want.title ?? ''}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});

test('the walk covers the routes of accounts, users and tokens', () => {
  for (const key of [
    'GET /api/v1/auth',
    'POST /api/v1/auth/setup',
    'POST /api/v1/auth/login',
    'POST /api/v1/auth/logout',
    'GET /api/v1/auth/me',
    'PUT /api/v1/auth/password',
    'GET /api/v1/users',
    'POST /api/v1/users',
    'PUT /api/v1/users/:id',
    'DELETE /api/v1/users/:id',
    'GET /api/v1/tokens',
    'POST /api/v1/tokens',
    'DELETE /api/v1/tokens/:id',
    'GET /metrics',
  ]) {
    const [method, url] = key.split(' ') as [string, string];
    assert.ok(server.app.hasRoute({ method: method as 'GET', url }), key);
  }
});

test('a route that authenticates by its own means is refused by nobody: its handler decides', () => {
  const token = { kind: 'token', tokenId: 't', scope: 'read', label: 'read' } as const;
  assert.deepEqual([...ownAuthentication].sort(), ['hmac', 'host', 'ping', 'site']);
  for (const access of ownAuthentication) {
    assert.equal(refusal(access, null), null, access);
    assert.equal(refusal(access, token), null, access);
  }
});
