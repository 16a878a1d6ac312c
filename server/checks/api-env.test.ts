import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen } from '../../runners/fixtures/context.ts';
import { createToken } from '../auth/tokens.ts';
import { FakeClock } from '../clock.ts';
import { createTestServer, tempDir } from '../testing.ts';

const oidcSecret = 'oidc-client-secret-9c2e';
const statusToken = 'status-token-51aa';

test('a write token cannot make a check send a variable of the server that mon.toml does not list for it', async (t) => {
  // The peer a check points at: it records everything it is sent.
  const received: string[] = [];
  const peer = createServer((req, res) => {
    received.push(`${req.url} ${req.headers.authorization ?? ''}`);
    res.end('ok');
  });
  const peerPort = await listen(peer);
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  writeFileSync(configPath, '[checks]\napi_env = ["STATUS_TOKEN"]\n');
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const server = await createTestServer({
    clock,
    configPath,
    env: { OIDC_SECRET: oidcSecret, STATUS_TOKEN: statusToken },
  });
  await server.app.listen({ port: 0, host: '127.0.0.1' });
  t.after(async () => {
    await server.dispose();
    peer.closeAllConnections();
    peer.close();
    remove();
  });
  const api = `http://127.0.0.1:${(server.app.server.address() as AddressInfo).port}/api/v1`;
  const { token } = await createToken(server.deps, { scope: 'write', label: 'ci', createdBy: 'test' });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${api}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    assert.ok(!text.includes(oidcSecret) && !text.includes(statusToken), `${method} ${path} shows a value`);
    return {
      status: res.status,
      type: res.headers.get('content-type'),
      body: text ? JSON.parse(text) : null,
    };
  };
  const target = `http://127.0.0.1:${peerPort}/`;
  const check = { name: 'status', service: 'shop', kind: 'http', target, everyMs: 10_000 };

  // Unlisted variables: 422 naming the field and the variable, and nothing is made.
  let res = await call('POST', '/checks', { ...check, target: `${target}api/push/x?msg=\${OIDC_SECRET}` });
  assert.equal(res.status, 422);
  assert.match(res.type ?? '', /^application\/problem\+json/);
  assert.equal(
    res.body.detail,
    'target: environment variable OIDC_SECRET is not listed in [checks] api_env of mon.toml; checks made in the panel or through the API may use only those',
  );
  res = await call('POST', '/checks', { ...check, headers: { Authorization: `Bearer \${OIDC_SECRET}` } });
  assert.equal(res.status, 422);
  assert.match(res.body.detail, /^headers\.Authorization: environment variable OIDC_SECRET is not listed/);
  assert.deepEqual((await call('GET', '/services')).body.services, [], 'no check and no service was made');

  // A listed variable is filled in at each run.
  res = await call('POST', '/checks', { ...check, headers: { Authorization: `Bearer \${STATUS_TOKEN}` } });
  assert.equal(res.status, 201);
  const { id } = res.body;
  const entry = server.checks.engine.get(id)!;
  await clock.advance(0);
  for (let i = 0; i < 300 && entry.rec.lastRunAt === null; i++) {
    await sleep(10);
    await server.checks.engine.flush();
  }
  assert.deepEqual(received, [`/ Bearer ${statusToken}`]);
  assert.equal(entry.rec.lastDetail, '200 OK');

  // Not by a change either: PUT answers 422 and the stored check stays as it was.
  res = await call('PUT', `/checks/${id}`, {
    ...check,
    target: `${target}?s=\${OIDC_SECRET}`,
    headers: { Authorization: null },
  });
  assert.equal(res.status, 422);
  assert.match(res.body.detail, /^target: environment variable OIDC_SECRET is not listed/);
  assert.equal((await call('GET', `/checks/${id}`)).body.input.target, target);

  // The operator takes the variable off the list: the next run fails and sends nothing.
  writeFileSync(configPath, '[checks]\napi_env = []\n');
  server.deps.config.reload();
  for (let i = 0; i < 100 && server.deps.config.current().checkSettings.apiEnv.length > 0; i++)
    await sleep(20);
  assert.deepEqual(server.deps.config.current().checkSettings.apiEnv, []);
  await clock.advance(10_000);
  for (let i = 0; i < 300 && entry.rec.lastDetail === '200 OK'; i++) {
    await sleep(10);
    await server.checks.engine.flush();
  }
  assert.equal(
    entry.rec.lastDetail,
    'environment variable STATUS_TOKEN is not listed in [checks] api_env of mon.toml (used in header Authorization)',
  );
  assert.equal(received.length, 1, 'the peer got nothing more');
});
