import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import type { PollAnswer } from '../../protocol/agent.ts';
import type { AddedHost } from '../../protocol/hosts.ts';
import { authTestServer, browser } from '../auth/test-helpers.ts';
import { fileCheck, liveConfig } from '../checks/testkit.ts';
import { FakeClock } from '../clock.ts';
import { migrate, migrationFiles } from '../store/db.ts';
import { memoryLog } from '../testing.ts';
import { hostByToken, hostTokenHash } from './store.ts';

const SECRET = 's3cret-of-the-server';

/** A check of mon.toml run from web-3, with `headers`. */
const fromWeb3 = (index: number, name: string, headers: Record<string, string>) =>
  fileCheck(index, {
    name,
    service: 'shop',
    kind: 'http',
    target: `https://${name}.example.com/`,
    method: null,
    headers,
    everyMs: null,
    timeoutMs: null,
    from: 'web-3',
    expect: null,
    cron: null,
    timezone: null,
    graceMs: null,
    allowLinkLocal: null,
  });

async function tokenServer() {
  const memory = memoryLog();
  const config = liveConfig({
    checks: [
      fromWeb3(0, 'keyed', { 'X-Key': `\${SECRET_KEY}` }),
      fromWeb3(1, 'listed', { 'X-Key': `\${API_KEY}` }),
    ],
    checkSettings: { apiEnv: ['API_KEY'] },
  });
  const server = await authTestServer({
    clock: new FakeClock(),
    config: config.service,
    env: { SECRET_KEY: SECRET, API_KEY: 'listed-value' },
    log: memory.log,
  });
  const admin = browser(await server.cookieOf(await server.addUser('admin@example.com', 'admin')));
  const write = { authorization: `Bearer ${await server.tokenOf('write')}` };
  const addHost = async (headers: Record<string, string>) => {
    const res = await server.app.inject({
      method: 'POST',
      url: '/api/v1/hosts',
      headers,
      payload: { name: 'web-3' },
    });
    assert.ok(res.statusCode === 201 || res.statusCode === 200, res.body);
    return (res.json() as AddedHost).token;
  };
  const poll = async (token: string) => {
    const res = await server.app.inject({
      method: 'GET',
      url: '/agent/v1/poll?assignment=&version=0.2.0&protocol=1&capabilities=ping,headers',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(res.statusCode, 200, res.body);
    return { answer: res.json() as PollAnswer, text: res.body };
  };
  const checkNamed = (name: string) => server.checks.engine.all().find((e) => e.def.name === name)!;
  return { server, memory, admin, write, addHost, poll, checkNamed };
}

test("a write token's host token is not sent the variables of mon.toml's checks; an admin's is", async (t) => {
  const kit = await tokenServer();
  t.after(() => kit.server.dispose());

  // A write token makes web-3 a token, and its agent polls: only variables listed in api_env reach it.
  const apiToken = await kit.addHost(kit.write);
  assert.equal(hostByToken(kit.server.deps.store.read, apiToken)?.tokenBy, 'api');
  const refused = await kit.poll(apiToken);
  assert.ok(!refused.text.includes(SECRET), 'the value is not delivered');
  assert.deepEqual(
    refused.answer.checks.map((c) => [c.name, c.env]),
    [['listed', { API_KEY: 'listed-value' }]],
    'api_env variables still reach it',
  );
  // The check left out says what to do, rather than running with a blank value.
  await kit.server.checks.engine.flush();
  const keyed = kit.checkNamed('keyed').rec;
  assert.equal(keyed.state.status, 'unknown');
  assert.equal(
    keyed.lastDetail,
    'environment variable SECRET_KEY is not listed in [checks] api_env of mon.toml (used in header X-Key), ' +
      "and the token of the agent on web-3 was made with an API token: make the host's token in the panel " +
      'as an admin, or list SECRET_KEY in api_env',
  );

  // An admin signed in to the panel makes the token again: its agent gets the value.
  const adminToken = await kit.addHost(kit.admin);
  assert.equal(hostByToken(kit.server.deps.store.read, adminToken)?.tokenBy, 'admin');
  const given = (await kit.poll(adminToken)).answer;
  assert.deepEqual(
    given.checks.map((c) => [c.name, c.env]),
    [
      ['keyed', { SECRET_KEY: SECRET }],
      ['listed', { API_KEY: 'listed-value' }],
    ],
  );

  // A write token replacing it again takes the value away with the admin's token.
  const again = await kit.addHost(kit.write);
  assert.ok(!(await kit.poll(again)).text.includes(SECRET));
  assert.deepEqual(
    kit.memory
      .lines()
      .filter((l) => l.security === 'host.token.created')
      .map((l) => [l.by, l.replaced]),
    [
      ['api', false],
      ['admin', true],
      ['api', true],
    ],
  );
});

test('a host token made before migration 021 counts as made with an API token', (t) => {
  // A database as 020 left it, with a host and its token, then the migrations of today.
  const dir = mkdtempSync(join(tmpdir(), 'mon-migrations-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const all = join(import.meta.dirname, '../store/migrations');
  for (const file of migrationFiles(all).filter((f) => Number(f.slice(0, 3)) <= 20)) {
    copyFileSync(join(all, file), join(dir, file));
  }
  const db = new DatabaseSync(':memory:');
  migrate(db, dir);
  const token = 'bth_made-before-the-column';
  db.prepare('INSERT INTO hosts (name, token_hash, created_at) VALUES (?, ?, 0)').run(
    'web-3',
    hostTokenHash(token),
  );
  migrate(db);
  assert.deepEqual(hostByToken(db, token), { name: 'web-3', tokenBy: 'api' });
  db.close();
});
