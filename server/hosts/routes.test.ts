import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { AddedHost, HostAlerts, HostRead, HostsList } from '../../protocol/hosts.ts';
import { type AuthTestServer, authTestServer, browser } from '../auth/test-helpers.ts';
import { type Any, checkServer, liveConfig } from '../checks/testkit.ts';
import { fileService } from '../incidents/testkit.ts';
import { statement } from '../store/statements.ts';
import { memoryLog } from '../testing.ts';
import { defaultHostAlerts } from './config.ts';
import { hostByToken, hostTokenHash } from './store.ts';
import { container, itemId, sample, storeSample } from './testkit.ts';

const fileAlerts: HostAlerts = { ...defaultHostAlerts, cpu: 95, ignoreMounts: ['/boot'] };

/** A server signed in as a write token, with `[[host]] db-1` and `[[service]] shop` on `app-1` in mon.toml. */
async function hostServer(url: string | null = 'https://mon.example.com') {
  const memory = memoryLog();
  const config = liveConfig({
    server: { url, trustedProxies: [] },
    hosts: [{ name: 'db-1', alerts: fileAlerts }],
    services: [fileService('shop', [], ['app-1'])],
  });
  const kit = await checkServer({ config: config.service, log: memory.log });
  return { ...kit, config, memory };
}

/** The database's files as bytes: the main file and its write-ahead log. */
function databaseBytes(dataDir: string): Buffer {
  const files = ['mon.db', 'mon.db-wal'].map((f) => join(dataDir, f)).filter((f) => existsSync(f));
  return Buffer.concat(files.map((f) => readFileSync(f)));
}

test('POST /hosts answers a token once, stored only as its hash; again, a new token replaces the old', async (t) => {
  const { server, inject, memory } = await hostServer();
  t.after(() => server.dispose());

  const res = await inject('POST', '/api/v1/hosts', { name: 'web-1' });
  assert.equal(res.status, 201, res.text);
  const added = res.body as AddedHost;
  assert.equal(added.name, 'web-1');
  assert.match(added.token, /^bth_[A-Za-z0-9_-]{20,}$/);
  assert.equal(added.replaced, false);
  assert.equal(added.agentUrl, 'https://mon.example.com/agent/v1/agent.mjs');
  assert.equal(typeof added.install.docker, 'string');
  assert.equal(typeof added.install.systemd, 'string');
  // install.ts builds the commands from the token and server given to it: a command carries both.
  for (const command of [added.install.docker, added.install.systemd].filter((c) => c !== '')) {
    assert.ok(command.includes(added.token), 'the install command runs the agent with this token');
    assert.ok(command.includes('https://mon.example.com'), 'the install command names this server');
  }
  assert.equal(hostByToken(server.deps.store.read, added.token)?.name, 'web-1');

  // Stored hashed: the token's text is nowhere in the database, its hash is.
  const bytes = databaseBytes(server.dataDir);
  assert.ok(bytes.includes(hostTokenHash(added.token)), 'the hash is where the search looked');
  assert.ok(!bytes.includes(added.token), 'the token itself is not stored');

  // Never shown again: the reads do not hold it.
  const list = await inject('GET', '/api/v1/hosts');
  const read = await inject('GET', '/api/v1/hosts/web-1');
  assert.equal(list.status, 200);
  assert.equal(read.status, 200);
  for (const text of [list.text, read.text]) assert.ok(!text.includes(added.token));

  const again = await inject('POST', '/api/v1/hosts', { name: 'web-1' });
  assert.equal(again.status, 200, again.text);
  const renewed = again.body as AddedHost;
  assert.equal(renewed.replaced, true);
  assert.notEqual(renewed.token, added.token);
  assert.equal(hostByToken(server.deps.store.read, added.token), undefined, 'the old token stops at once');
  assert.equal(hostByToken(server.deps.store.read, renewed.token)?.name, 'web-1');

  const events = memory.lines().filter((l) => l.security === 'host.token.created');
  assert.deepEqual(
    events.map((e) => [e.host, e.replaced, e.tokenLabel]),
    [
      ['web-1', false, 'test'],
      ['web-1', true, 'test'],
    ],
  );
  for (const token of [added.token, renewed.token]) assert.ok(!memory.text().includes(token));
});

test('a host of mon.toml gets a token and stays from the file; without [server] url the request names the server', async (t) => {
  const { server, inject } = await hostServer(null);
  t.after(() => server.dispose());
  for (const name of ['db-1', 'app-1']) {
    const res = await inject('POST', '/api/v1/hosts', { name });
    assert.equal(res.status, 201, res.text);
    const added = res.body as AddedHost;
    assert.equal(added.replaced, false, 'a first token replaces nothing');
    assert.equal(added.agentUrl, 'http://localhost:80/agent/v1/agent.mjs');
    const read = (await inject('GET', `/api/v1/hosts/${name}`)).body as HostRead;
    assert.equal(read.fromFile, true);
  }
  const list = (await inject('GET', '/api/v1/hosts')).body as HostsList;
  assert.deepEqual(
    list.hosts.map((h) => [h.name, h.fromFile]),
    [
      ['app-1', true],
      ['db-1', true],
    ],
  );
});

test('POST /hosts refuses a bad name, naming the field, and stores nothing', async (t) => {
  const { server, inject } = await hostServer();
  t.after(() => server.dispose());
  const cases: [unknown, RegExp][] = [
    [{}, /^name: required/],
    [{ name: '' }, /^name: must not be empty/],
    [{ name: 'x'.repeat(101) }, /^name: must be at most 100 characters/],
    [{ name: 'web-1', token: 'bth_mine' }, /token/],
  ];
  for (const [body, detail] of cases) {
    const res = await inject('POST', '/api/v1/hosts', body);
    assert.equal(res.status, 422, res.text);
    assert.match((res.body as Any).detail, detail);
  }
  assert.equal((await inject('POST', '/api/v1/hosts', [1])).status, 400);
  const list = (await inject('GET', '/api/v1/hosts')).body as HostsList;
  assert.deepEqual(
    list.hosts.map((h) => h.name),
    ['app-1', 'db-1'],
  );
});

const apiAlerts: HostAlerts = {
  cpu: 80,
  memory: null,
  swap: 50,
  disk: 85,
  temperature: 70,
  ignoreMounts: ['/boot', '/mnt/backup'],
};

test('PUT /hosts/{name}/alerts stores the thresholds; a host of mon.toml gives 409, an unknown one 404', async (t) => {
  const { server, inject } = await hostServer();
  t.after(() => server.dispose());
  await inject('POST', '/api/v1/hosts', { name: 'web-1' });
  const before = (await inject('GET', '/api/v1/hosts/web-1')).body as HostRead;
  assert.deepEqual([before.alerts, before.alertsFrom], [defaultHostAlerts, 'default']);

  const put = await inject('PUT', '/api/v1/hosts/web-1/alerts', apiAlerts);
  assert.equal(put.status, 204, put.text);
  const after = (await inject('GET', '/api/v1/hosts/web-1')).body as HostRead;
  assert.deepEqual([after.alerts, after.alertsFrom], [apiAlerts, 'api']);

  // The file's hosts keep their thresholds in mon.toml: [[host]] and [[service]] hosts alike.
  for (const name of ['db-1', 'app-1']) {
    const refused = await inject('PUT', `/api/v1/hosts/${name}/alerts`, apiAlerts);
    assert.equal(refused.status, 409, refused.text);
    assert.match((refused.body as Any).detail, /mon\.toml/);
  }
  const db1 = (await inject('GET', '/api/v1/hosts/db-1')).body as HostRead;
  assert.deepEqual([db1.alerts, db1.alertsFrom], [fileAlerts, 'file']);

  const unknown = await inject('PUT', '/api/v1/hosts/nowhere/alerts', apiAlerts);
  assert.equal(unknown.status, 404, unknown.text);
  assert.equal((await inject('GET', '/api/v1/hosts/nowhere')).status, 404);
});

test('thresholds set through the API rest while mon.toml names the host, and hold again once it does not', async (t) => {
  const { server, inject, config } = await hostServer();
  t.after(() => server.dispose());
  await inject('POST', '/api/v1/hosts', { name: 'web-9' });
  assert.equal((await inject('PUT', '/api/v1/hosts/web-9/alerts', apiAlerts)).status, 204);
  const read = async () => (await inject('GET', '/api/v1/hosts/web-9')).body as HostRead;

  // Named in a service's hosts: the file's rule (no [[host]] table: the defaults), read-only here.
  config.reload({ services: [fileService('shop', [], ['app-1', 'web-9'])] });
  const named = await read();
  assert.deepEqual([named.fromFile, named.alertsFrom, named.alerts], [true, 'default', defaultHostAlerts]);
  assert.equal((await inject('PUT', '/api/v1/hosts/web-9/alerts', defaultHostAlerts)).status, 409);

  config.reload({ services: [fileService('shop', [], ['app-1'])] });
  const unnamed = await read();
  assert.deepEqual([unnamed.fromFile, unnamed.alertsFrom, unnamed.alerts], [false, 'api', apiAlerts]);
});

test('PUT /hosts/{name}/alerts takes every key, null for off, and names the field it refuses', async (t) => {
  const { server, inject } = await hostServer();
  t.after(() => server.dispose());
  await inject('POST', '/api/v1/hosts', { name: 'web-1' });
  assert.equal((await inject('PUT', '/api/v1/hosts/web-1/alerts', apiAlerts)).status, 204);
  const { swap: _swap, ...withoutSwap } = apiAlerts;
  const cases: [unknown, RegExp][] = [
    [withoutSwap, /^swap: /],
    [{ ...apiAlerts, cpu: 0 }, /^cpu: must be a number from 1 to 100, or null/],
    [{ ...apiAlerts, disk: '90' }, /^disk: /],
    [{ ...apiAlerts, temperature: 151 }, /^temperature: must be a number from 1 to 150/],
    [{ ...apiAlerts, ignoreMounts: ['/', 'boot'] }, /^ignoreMounts\[1\]: must be an absolute mount path/],
    [{ ...apiAlerts, load: 4 }, /load/],
  ];
  for (const [body, detail] of cases) {
    const res = await inject('PUT', '/api/v1/hosts/web-1/alerts', body);
    assert.equal(res.status, 422, res.text);
    assert.match((res.body as Any).detail, detail);
  }
  const kept = (await inject('GET', '/api/v1/hosts/web-1')).body as HostRead;
  assert.deepEqual(kept.alerts, apiAlerts, 'a refused body changes nothing');

  // Mount points as the agent reports them: a space inside, a trailing slash dropped, control characters refused.
  const spaced = { ...apiAlerts, ignoreMounts: ['/mnt/My Drive', '/boot/', '/'] };
  assert.equal((await inject('PUT', '/api/v1/hosts/web-1/alerts', spaced)).status, 204);
  const mounts = ((await inject('GET', '/api/v1/hosts/web-1')).body as HostRead).alerts.ignoreMounts;
  assert.deepEqual(mounts, ['/mnt/My Drive', '/boot', '/']);
  const control = await inject('PUT', '/api/v1/hosts/web-1/alerts', {
    ...apiAlerts,
    ignoreMounts: ['/a\nb'],
  });
  assert.equal(control.status, 422, control.text);
  assert.match((control.body as Any).detail, /^ignoreMounts\[0\]: must be an absolute mount path/);

  const off = { cpu: null, memory: null, swap: null, disk: null, temperature: null, ignoreMounts: [] };
  assert.equal((await inject('PUT', '/api/v1/hosts/web-1/alerts', off)).status, 204);
  assert.deepEqual(((await inject('GET', '/api/v1/hosts/web-1')).body as HostRead).alerts, off);
});

test('a host known only by a service link gets its row with the thresholds', async (t) => {
  const { server, inject } = await hostServer();
  t.after(() => server.dispose());
  await server.deps.store.writer.run((db) => {
    statement(db, 'INSERT INTO service_hosts (service, host) VALUES (?, ?)').run('blog', 'web-7');
  });
  assert.equal((await inject('PUT', '/api/v1/hosts/web-7/alerts', apiAlerts)).status, 204);
  const read = (await inject('GET', '/api/v1/hosts/web-7')).body as HostRead;
  assert.deepEqual([read.alertsFrom, read.services, read.agent], ['api', ['blog'], null]);
});

/** Every host route with a body it accepts, and the status it answers when allowed. */
function routes(item: string) {
  return [
    { method: 'POST', url: '/api/v1/hosts', body: { name: 'web-1' }, ok: [200, 201], write: true },
    { method: 'GET', url: '/api/v1/hosts', ok: [200], write: false },
    { method: 'GET', url: '/api/v1/hosts/web-1', ok: [200], write: false },
    { method: 'PUT', url: '/api/v1/hosts/web-1/alerts', body: apiAlerts, ok: [204], write: true },
    { method: 'GET', url: '/api/v1/hosts/web-1/containers/redis', ok: [200], write: false },
    { method: 'GET', url: '/api/v1/hosts/web-1/units/nginx.service', ok: [200], write: false },
    { method: 'POST', url: '/api/v1/discovered/dismiss', body: { ids: [item] }, ok: [204], write: true },
    {
      method: 'POST',
      url: '/api/v1/discovered/monitor',
      body: { host: 'web-1', service: 'cache', check: null },
      ok: [201],
      write: true,
    },
    // Last: the first allowed removes it, the next finds it gone.
    { method: 'DELETE', url: '/api/v1/hosts/old-1', ok: [204, 404], write: true },
  ] as const;
}

test('each credential: reads for any session and read or write tokens, writes for admins and write tokens', async (t) => {
  const server: AuthTestServer = await authTestServer();
  t.after(() => server.dispose());
  const admin = await server.cookieOf(await server.addUser('admin@example.com', 'admin'));
  const viewer = await server.cookieOf(await server.addUser('viewer@example.com', 'viewer'));
  const bearer = async (scope: 'read' | 'write' | 'deploy') => ({
    authorization: `Bearer ${await server.tokenOf(scope)}`,
  });
  const credentials = {
    none: {},
    viewer: browser(viewer),
    admin: browser(admin),
    read: await bearer('read'),
    write: await bearer('write'),
    deploy: await bearer('deploy'),
  };
  await server.app.inject({
    method: 'POST',
    url: '/api/v1/hosts',
    headers: credentials.write,
    payload: { name: 'web-1' },
  });
  await server.app.inject({
    method: 'POST',
    url: '/api/v1/hosts',
    headers: credentials.write,
    payload: { name: 'old-1' },
  });
  const ts = server.deps.clock.now();
  await storeSample(
    server,
    'web-1',
    sample(ts, {
      containers: [container({ name: 'redis' })],
      units: [
        { name: 'nginx.service', state: 'active', subState: 'running', restarts: 0, cpu: 1, memory: 1 },
      ],
    }),
  );
  const failures: string[] = [];
  for (const [who, headers] of Object.entries(credentials)) {
    for (const r of routes(itemId('web-1', 'container', 'redis'))) {
      const res = await server.app.inject({
        method: r.method,
        url: r.url,
        headers,
        ...('body' in r ? { payload: r.body } : {}),
      });
      const allowed =
        who === 'admin' || who === 'write' || (!r.write && (who === 'viewer' || who === 'read'));
      const want: readonly number[] = who === 'none' ? [401] : allowed ? r.ok : [403];
      if (!want.includes(res.statusCode)) {
        failures.push(`${r.method} ${r.url} as ${who}: ${res.statusCode} ${res.body}`);
      }
      if (who === 'viewer' && r.write && res.json().title !== 'only admins can do this') {
        failures.push(`${r.method} ${r.url} as viewer: ${res.body}`);
      }
    }
  }
  assert.deepEqual(failures, []);
});
