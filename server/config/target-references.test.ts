import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { listen } from '../../runners/fixtures/context.ts';
import type { Principal } from '../auth/access.ts';
import { createTestServer, tempDir } from '../testing.ts';

const secret = 'topsecretvalue';

test('a reference in a check target is filled in when the check runs and never shown by reads', async (t) => {
  const seen: string[] = [];
  const peer = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.end('ok');
  });
  const port = await listen(peer);
  const { dir, remove } = tempDir();
  const configPath = join(dir, 'mon.toml');
  const url = `http://127.0.0.1:\${API_PORT}/status?apikey=\${MY_KEY}`;
  writeFileSync(configPath, `[[check]]\nname = "api"\nservice = "shop"\nurl = "${url}"\nevery = "10s"\n`);
  const admin: Principal = { kind: 'token', tokenId: 't1', scope: 'write', label: 'test' };
  const server = await createTestServer({
    configPath,
    env: { API_PORT: String(port), MY_KEY: secret },
    authenticate: async () => admin,
  });
  t.after(async () => {
    await server.dispose();
    peer.close();
    remove();
  });
  const engine = server.checks.engine;
  const [entry] = engine.all();
  assert.ok(entry);
  for (let i = 0; i < 300 && entry.rec.lastRunAt === null; i++) await sleep(10);
  await engine.flush();
  assert.deepEqual(seen, [`/status?apikey=${secret}`], 'the run uses the value');
  assert.equal(entry.rec.state.status, 'up');

  const get = async (path: string) => {
    const res = await server.app.inject({ url: path });
    assert.equal(res.statusCode, 200, path);
    assert.ok(!res.body.includes(secret), `${path} shows the secret`);
    return res.json();
  };
  const { id } = entry.rec;
  assert.equal((await get(`/api/v1/checks/${id}`)).input.target, url);
  await get('/api/v1/services');
  await get('/api/v1/services/shop');
  await get(`/api/v1/checks/${id}/detail`);
  await get(`/api/v1/checks/${id}/history`);
  const exported = await get('/api/v1/config/export');
  assert.match(exported.toml, /url = "http:\/\/127\.0\.0\.1:\$\{API_PORT\}\/status\?apikey=\$\{MY_KEY\}"/);
});
