import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { POLL_WAIT_MS, type PollAnswer, pollAnswerSchema } from '../../protocol/agent.ts';
import type { CheckBody } from '../../protocol/check.ts';
import { fileCheck, liveConfig } from '../checks/testkit.ts';
import { within } from '../testing.ts';
import { hostServer } from './testkit.ts';

const http = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  service: 'shop',
  kind: 'http',
  target: `https://${name}.example.com/`,
  everyMs: 30_000,
  ...over,
});

type Kit = Awaited<ReturnType<typeof hostServer>>;

/** The server holds the host's poll as waiting, and nothing was answered to it. */
async function waits(kit: Kit, host: string, poll: Promise<unknown>): Promise<void> {
  await within(2_000, `a poll of ${host} waits`, () => kit.server.hosts.pollWaiting(host));
  assert.equal(await settled(poll), false, 'nothing answered yet');
}

/** Whether a promise settled within a few turns of the event loop. */
async function settled(p: Promise<unknown>): Promise<boolean> {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  return done;
}

test("the poll answers the host's checks with their settings, and none of another host's", async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.addHost('web-2');
  const home = (await kit.inject('POST', '/api/v1/checks', http('home', { from: 'web-1', method: 'HEAD' })))
    .body.id;
  const db = (
    await kit.inject('POST', '/api/v1/checks', {
      name: 'db-port',
      service: 'shop',
      kind: 'tcp',
      target: 'db.internal:5432',
      from: 'web-1',
      expect: [{ responseTimeBelowMs: 500, degraded: true }],
    })
  ).body.id;
  await kit.inject('POST', '/api/v1/checks', http('other', { from: 'web-2' }));
  await kit.inject('POST', '/api/v1/checks', http('central'));
  await kit.inject('POST', '/api/v1/checks', {
    name: 'site',
    service: 'shop',
    kind: 'domain',
    target: 'example.com',
  });

  const res = await kit.poll(token);
  assert.equal(res.status, 200);
  const answer = pollAnswerSchema.parse(res.body);
  assert.equal(answer.host, 'web-1');
  assert.equal(answer.protocol, 1);
  assert.deepEqual(answer.settings, { sampleEveryMs: 15_000 });
  assert.deepEqual(answer.commands, []);
  assert.deepEqual(answer.checks, [
    {
      id: db,
      name: 'db-port',
      kind: 'tcp',
      target: 'db.internal:5432',
      method: null,
      headers: {},
      everyMs: 60_000,
      timeoutMs: 10_000,
      expect: [{ responseTimeBelowMs: 500, degraded: true }],
      allowLinkLocal: false,
      env: {},
    },
    {
      id: home,
      name: 'home',
      kind: 'http',
      target: 'https://home.example.com/',
      method: 'HEAD',
      headers: {},
      everyMs: 30_000,
      timeoutMs: 10_000,
      expect: [],
      allowLinkLocal: false,
      env: {},
    },
  ]);
  assert.equal((await kit.poll(token)).body.assignment, answer.assignment, 'the tag is stable');
  const bad = await kit.poll(token, { version: 'x'.repeat(65) });
  assert.equal(bad.status, 400);
  assert.match(bad.body.detail, /^version: /);
});

test('a poll with the current assignment waits until a check of its host changes, or the wait ends', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.addHost('web-2');
  const first = (await kit.poll(token)).body as PollAnswer;

  // Nothing changes: answered with the same assignment after POLL_WAIT_MS.
  let waiting = kit.poll(token, { assignment: first.assignment });
  await waits(kit, 'web-1', waiting);
  await kit.clock.advance(POLL_WAIT_MS - 1);
  await waits(kit, 'web-1', waiting);
  await kit.clock.advance(1);
  assert.equal((await waiting).body.assignment, first.assignment);

  // A check of another host does not wake it; one added with from = web-1 does.
  waiting = kit.poll(token, { assignment: first.assignment });
  await kit.inject('POST', '/api/v1/checks', http('other', { from: 'web-2' }));
  await waits(kit, 'web-1', waiting);
  const id = (await kit.inject('POST', '/api/v1/checks', http('home', { from: 'web-1' }))).body.id;
  const woken = (await waiting).body as PollAnswer;
  assert.notEqual(woken.assignment, first.assignment);
  assert.deepEqual(
    woken.checks.map((c) => c.id),
    [id],
  );

  // Moved to another host: both hosts' polls wake.
  const two = await kit.addHost('web-2');
  const twoAnswer = (await kit.poll(two)).body as PollAnswer;
  const oneWaits = kit.poll(token, { assignment: woken.assignment });
  const twoWaits = kit.poll(two, { assignment: twoAnswer.assignment });
  await waits(kit, 'web-1', oneWaits);
  await waits(kit, 'web-2', twoWaits);
  const moved = await kit.inject('PUT', `/api/v1/checks/${id}`, http('home', { from: 'web-2' }));
  assert.equal(moved.status, 200);
  assert.deepEqual((await oneWaits).body.checks, []);
  assert.deepEqual(
    ((await twoWaits).body as PollAnswer).checks.map((c) => c.name),
    ['home', 'other'],
  );

  // Removed: its host's poll wakes.
  const last = (await kit.poll(two)).body as PollAnswer;
  const removedWait = kit.poll(two, { assignment: last.assignment });
  await kit.inject('DELETE', `/api/v1/checks/${id}`);
  assert.deepEqual(
    ((await removedWait).body as PollAnswer).checks.map((c) => c.name),
    ['other'],
  );
});

test('one waiting poll per host: a second answers the first; a stopping server answers all at once', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const other = await kit.addHost('web-2');
  const tag = (await kit.poll(token)).body.assignment as string;
  const otherTag = (await kit.poll(other)).body.assignment as string;
  const firstWait = kit.poll(token, { assignment: tag });
  await waits(kit, 'web-1', firstWait);
  const secondWait = kit.poll(token, { assignment: tag });
  assert.equal((await firstWait).body.assignment, tag, 'the first is answered as it stands');
  const otherWait = kit.poll(other, { assignment: otherTag });
  await waits(kit, 'web-1', secondWait);
  await waits(kit, 'web-2', otherWait);
  // The fake clock never reaches the deadline: only the stop can answer them.
  await kit.server.close();
  assert.equal((await secondWait).status, 200);
  assert.equal((await otherWait).status, 200);
});

test('an agent too old for ping checks or request headers is not given them, and the check says why, once', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const ping = (
    await kit.inject('POST', '/api/v1/checks', {
      name: 'gw',
      service: 'net',
      kind: 'ping',
      target: '10.0.0.1',
      from: 'web-1',
    })
  ).body.id;
  const headers = (
    await kit.inject(
      'POST',
      '/api/v1/checks',
      http('admin', { from: 'web-1', headers: { 'X-Probe': 'mon' } }),
    )
  ).body.id;
  const plain = (await kit.inject('POST', '/api/v1/checks', http('home', { from: 'web-1' }))).body.id;
  const marks: string[] = [];
  const markUnknown = kit.engine.markUnknown.bind(kit.engine);
  kit.engine.markUnknown = (id, ts, detail) => {
    marks.push(id);
    markUnknown(id, ts, detail);
  };

  const old = (await kit.poll(token, { version: '0.0.9', capabilities: '' })).body as PollAnswer;
  assert.deepEqual(
    old.checks.map((c) => c.id),
    [plain],
  );
  await kit.engine.flush();
  assert.equal(kit.engine.get(ping)!.rec.state.status, 'unknown');
  assert.equal(
    kit.engine.get(ping)!.rec.lastDetail,
    'the agent on web-1 (0.0.9) is too old for ping checks; update it',
  );
  assert.equal(
    (kit.db.prepare('SELECT last_detail FROM checks WHERE id = ?').get(headers) as { last_detail: string })
      .last_detail,
    'the agent on web-1 (0.0.9) is too old for request headers; update it',
  );
  await kit.poll(token, { version: '0.0.9', capabilities: 'headers' });
  await kit.engine.flush();
  assert.deepEqual(marks.sort(), [headers, ping].sort(), 'each marked once');

  const updated = (await kit.poll(token, { version: '0.2.0' })).body as PollAnswer;
  assert.deepEqual(updated.checks.map((c) => c.name).sort(), ['admin', 'gw', 'home']);
  assert.deepEqual(updated.checks.find((c) => c.id === headers)?.headers, { 'X-Probe': 'mon' });
});

test('env holds the values of the references a check uses: any for mon.toml checks, api_env only for API checks', async (t) => {
  const body = (name: string, target: string): CheckBody => ({
    name,
    service: 'shop',
    kind: 'http',
    target,
    method: null,
    headers: { Authorization: `Bearer \${FILE_TOKEN}` },
    everyMs: null,
    timeoutMs: null,
    from: 'web-1',
    expect: null,
    cron: null,
    timezone: null,
    graceMs: null,
    allowLinkLocal: null,
  });
  const config = liveConfig({
    checks: [fileCheck(0, body('file', `https://\${FILE_HOST}/health`))],
    checkSettings: { apiEnv: ['API_TOKEN'] },
  });
  const kit = await hostServer({
    config: config.service,
    env: { FILE_HOST: 'internal.example.com', FILE_TOKEN: 'f-secret', API_TOKEN: 'a-secret', OTHER: 'o' },
  });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const made = await kit.inject(
    'POST',
    '/api/v1/checks',
    http('api', { from: 'web-1', headers: { Authorization: `Bearer \${API_TOKEN}` } }),
  );
  assert.equal(made.status, 201);
  const answer = (await kit.poll(token)).body as PollAnswer;
  const envOf = (a: PollAnswer, name: string) => a.checks.find((c) => c.name === name)?.env;
  assert.deepEqual(envOf(answer, 'file'), { FILE_HOST: 'internal.example.com', FILE_TOKEN: 'f-secret' });
  assert.deepEqual(envOf(answer, 'api'), { API_TOKEN: 'a-secret' });
  assert.equal(answer.checks.find((c) => c.name === 'file')?.target, `https://\${FILE_HOST}/health`);

  // mon.toml no longer lists API_TOKEN: the waiting poll wakes, and the API check gets no value.
  const waiting = kit.poll(token, { assignment: answer.assignment });
  await waits(kit, 'web-1', waiting);
  config.reload({ checkSettings: { apiEnv: [] } });
  const after = (await waiting).body as PollAnswer;
  assert.deepEqual(envOf(after, 'api'), {});
  assert.deepEqual(envOf(after, 'file'), { FILE_HOST: 'internal.example.com', FILE_TOKEN: 'f-secret' });
});

test('an agent that hangs up on its waiting poll stops waiting', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const tag = (await kit.poll(token)).body.assignment as string;
  await kit.server.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = kit.server.app.server.address() as AddressInfo;
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    path: `/agent/v1/poll?assignment=${tag}&version=0.1.0&protocol=1&capabilities=ping,headers`,
    headers: { authorization: `Bearer ${token}` },
  });
  req.on('error', () => {});
  req.end();
  await within(2_000, 'the poll waits', () => kit.server.hosts.pollWaiting('web-1'));
  req.destroy();
  await within(2_000, 'the poll stopped waiting', () => !kit.server.hosts.pollWaiting('web-1'));
});

test('a waiting poll whose host was given a new token is answered 401, not with its checks', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const old = await kit.addHost('web-1');
  const answer = (await kit.poll(old)).body as PollAnswer;
  const waiting = kit.poll(old, { assignment: answer.assignment });
  await waits(kit, 'web-1', waiting);
  const renewed = await kit.addHost('web-1');
  await kit.clock.advance(POLL_WAIT_MS);
  const res = await waiting;
  assert.equal(res.status, 401);
  assert.equal(res.body.detail, 'the host token is not valid');

  // Woken by a change, the same.
  const next = kit.poll(renewed, { assignment: answer.assignment });
  await waits(kit, 'web-1', next);
  await kit.addHost('web-1');
  await kit.inject('POST', '/api/v1/checks', http('home', { from: 'web-1' }));
  assert.equal((await next).status, 401);
});
