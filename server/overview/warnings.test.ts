import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Warnings } from '../../protocol/overview.ts';
import type { Principal } from '../auth/access.ts';
import { addHost, checkServer, liveConfig } from '../checks/testkit.ts';
import { FakeClock } from '../clock.ts';
import { channelSettings } from '../notify/config.ts';
import { storedSettings } from '../notify/targets.ts';
import { createTestServer, tempDir } from '../testing.ts';

/** `GET /api/v1/warnings` against a real server: its mon.toml, its checks, the requests it gets. */

const T0 = Date.UTC(2026, 0, 1);
const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };

async function warningsOf(
  inject: (method: 'GET', url: string) => Promise<{ status: number; body: unknown }>,
) {
  const res = await inject('GET', '/api/v1/warnings');
  assert.equal(res.status, 200);
  return res.body as Warnings;
}

test('channels counts the notification channels of mon.toml and of the panel', async (t) => {
  const { dir, remove } = tempDir();
  t.after(remove);
  const configPath = join(dir, 'mon.toml');
  writeFileSync(
    configPath,
    `[[alert]]\ntype = "ntfy"\nurl = "https://ntfy.example/ops"\n\n[[alert]]\ntype = "webhook"\nurl = "https://hooks.example/mon"\n`,
  );
  const server = await createTestServer({ configPath, authenticate: async () => admin });
  t.after(() => server.dispose());
  const inject = async (method: 'GET', url: string) => {
    const res = await server.app.inject({ method, url });
    return { status: res.statusCode, body: res.json() };
  };
  assert.equal((await warningsOf(inject)).channels, 2);

  writeFileSync(configPath, '');
  server.deps.config.reload();
  assert.equal((await warningsOf(inject)).channels, 0, 'nobody will be told');

  await server.deps.store.writer.run((db) => {
    const { settings, secret } = storedSettings(channelSettings({ url: 'https://ntfy.example/ops' }));
    db.prepare(
      `INSERT INTO channels (name, kind, settings, secret, created_at, updated_at) VALUES ('ops', 'ntfy', ?, ?, 0, 0)`,
    ).run(settings, secret);
  });
  assert.equal((await warningsOf(inject)).channels, 1, 'a channel made in the panel counts');
});

test('an untrusted proxy: the peer that forwarded requests in the last hour and its share of all requests', async (t) => {
  const clock = new FakeClock(T0);
  const config = liveConfig({});
  const server = await createTestServer({ clock, config: config.service, authenticate: async () => admin });
  t.after(() => server.dispose());
  const request = (remoteAddress: string, forwardedFor?: string) =>
    server.app.inject({
      url: '/api/v1/services',
      remoteAddress,
      headers: forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
    });
  const warnings = async () => (await server.app.inject({ url: '/api/v1/warnings' })).json() as Warnings;

  assert.equal((await warnings()).untrustedProxy, null, 'no request was forwarded');
  for (let i = 0; i < 6; i++) await request('10.0.0.5', `203.0.113.${i}`);
  await request('10.0.0.9', '203.0.113.50');
  await request('127.0.0.1');
  // 9 requests so far (the first warnings read too), 6 forwarded by 10.0.0.5; this read is the 10th.
  assert.deepEqual((await warnings()).untrustedProxy, { address: '10.0.0.5', sharePercent: 60 });

  // Once trusted, its requests are fine; the other proxy remains.
  config.reload({ server: { url: null, trustedProxies: ['10.0.0.0/29'] } });
  await request('10.0.0.5', '203.0.113.7');
  assert.deepEqual((await warnings()).untrustedProxy, { address: '10.0.0.9', sharePercent: 8.3 });

  // An hour later, what was counted is forgotten.
  await clock.advance(60 * 60_000);
  assert.equal((await warnings()).untrustedProxy, null);
});

test('sharedHost: mon runs on a host of a service, or a check it runs reaches this machine', async (t) => {
  const config = liveConfig({});
  const { server, inject } = await checkServer({ config: config.service });
  t.after(() => server.dispose());
  const shared = async () => (await warningsOf(inject)).sharedHost;
  const add = async (name: string, kind: string, target: string, from?: string) => {
    const body = { name, service: 'shop', kind, target, everyMs: 60_000, ...(from ? { from } : {}) };
    const res = await inject('POST', '/api/v1/checks', body);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return (res.body as { id: string }).id;
  };

  assert.equal(await shared(), false, 'nothing watched');
  await add('elsewhere', 'tcp', '192.0.2.10:443');
  await add('no such name', 'http', 'https://nothing.invalid/health');
  // An agent's check reaching its own loopback is about that host, not this one.
  await addHost(server, 'db-7');
  await add('agent local', 'tcp', '127.0.0.1:5432', 'db-7');
  assert.equal(await shared(), false);

  const local = await add('by name', 'http', 'http://localhost:8080/health');
  assert.equal(await shared(), true, 'localhost resolves to this machine');
  assert.equal((await inject('DELETE', `/api/v1/checks/${local}`)).status, 204);
  assert.equal(await shared(), false);
  const loopback = await add('by address', 'tcp', '127.0.0.1:5432');
  assert.equal(await shared(), true);
  assert.equal((await inject('DELETE', `/api/v1/checks/${loopback}`)).status, 204);

  const service = { name: 'shop', hosts: [hostname()], sites: [], dependsOn: [], tier: 'standard' };
  config.reload({ services: [service] });
  assert.equal(await shared(), true, 'this machine is a host of a service');
  config.reload({ services: [{ ...service, hosts: ['web-1'] }] });
  assert.equal(await shared(), false);
});
