import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryLog } from '../testing.ts';
import { MAX_AHEAD_MS } from './clock-ahead.ts';
import { container, hello, hostServer, runFrame, sample, T0 } from './testkit.ts';

const YEAR = 365 * 86_400_000;

test('a sample dated far ahead is skipped: later samples still move the host and its containers', async (t) => {
  const memory = memoryLog();
  const kit = await hostServer({ log: memory.log });
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-2');
  const warnings = () => memory.lines().filter((l) => String(l.message).startsWith('the clock of web-2'));

  const future = await kit.send(token, [hello(T0), sample(T0 + 200 * YEAR, { cpu: 99 })]);
  assert.deepEqual(future.body, { stored: 1, skipped: 1 }, 'the hello is stored, the sample skipped');
  assert.equal(kit.count('SELECT count(*) AS n FROM host_rollups WHERE bucket > ?', T0 + YEAR), 0);
  assert.equal(warnings().length, 1);
  assert.match(
    String(warnings()[0]?.message),
    /is 200 years? ahead|ahead of the server's: frames dated more/,
  );
  assert.equal(warnings()[0]?.skipped, 1);

  for (let i = 1; i <= 3; i++) {
    await kit.clock.advance(15_000);
    const now = kit.clock.now();
    // The first also carries one dated far ahead again: skipped, and not logged again within the minute.
    const ahead = i === 1 ? [sample(T0 + 200 * YEAR)] : [];
    const res = await kit.send(token, [...ahead, sample(now, { containers: [container({ name: 'api' })] })]);
    assert.deepEqual(res.body, { stored: 1, skipped: ahead.length });
  }
  assert.equal(warnings().length, 1, 'at most once a minute per host');
  const host = (await kit.inject('GET', '/api/v1/hosts/web-2')).body;
  assert.equal(host.now.ts, T0 + 45_000, 'the host is "now" at the real time');
  assert.deepEqual(
    host.containers.map((c: { name: string }) => c.name),
    ['api'],
  );
  assert.equal(host.agent.clockOffsetMs, undefined, 'the clock is right again');

  await kit.clock.advance(60_000);
  assert.deepEqual((await kit.send(token, [sample(T0 + 200 * YEAR)])).body, { stored: 0, skipped: 1 });
  assert.equal(warnings().length, 2, 'again a minute later');
  const offset = (await kit.inject('GET', '/api/v1/hosts/web-2')).body.agent.clockOffsetMs;
  assert.ok(offset > 199 * YEAR, 'the host page says how far ahead its clock is');
  assert.equal((await kit.inject('GET', '/api/v1/hosts/web-2')).body.now.ts, T0 + 45_000);
});

test('frames up to 5 minutes ahead are applied as dated; beyond, each frame and log line is left out', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const edge = T0 + MAX_AHEAD_MS;
  const log = {
    kind: 'log',
    lines: [
      { ts: edge, level: 'info', text: 'at the edge' },
      { ts: edge + 1, level: 'info', text: 'beyond' },
    ],
  };
  const beyond = { kind: 'log', lines: [{ ts: edge + 1, level: 'info', text: 'beyond too' }] };
  const res = await kit.send(token, [sample(edge), sample(edge + 1), hello(edge + 1), log, beyond]);
  assert.deepEqual(
    res.body,
    { stored: 3, skipped: 2 },
    'the sample and the log frame at the edge, the hello',
  );
  assert.deepEqual(
    kit.db
      .prepare('SELECT text FROM agent_logs')
      .all()
      .map((r) => r.text),
    ['at the edge'],
  );
  assert.equal(kit.count('SELECT count(*) AS n FROM hosts WHERE agent IS NOT NULL'), 1, 'the hello taken');
  assert.equal(kit.count('SELECT cpu_n AS n FROM host_rollups WHERE res = ? AND bucket = ?', 'm', edge), 1);
});

test('an older agent whose clock is 7 min ahead, its hello too: the host reads connected, with its offset', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-3');
  const ahead = 7 * 60_000;
  // No `mon-agent-time` header: every frame is dated by the host's clock, the hello first.
  const first = await kit.send(token, [hello(T0 + ahead), sample(T0 + ahead)]);
  assert.deepEqual(first.body, { stored: 1, skipped: 1 }, 'the hello is taken whatever its date');
  await kit.clock.advance(15_000);
  await kit.send(token, [sample(kit.clock.now() + ahead)]);
  const { agent, now } = (await kit.inject('GET', '/api/v1/hosts/web-3')).body;
  assert.equal(agent?.version, '0.1.0', 'an agent, not "No agent yet"');
  assert.equal(agent.connected, true);
  assert.equal(agent.clockOffsetMs, ahead, 'the host page says how far ahead its clock is');
  assert.equal(now, null, 'its samples are skipped');
});

test('a run dated far ahead is skipped: the real runs after it are recorded', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  const check = {
    name: 'home',
    service: 'shop',
    kind: 'http',
    target: 'https://home.example.com/',
    from: 'web-1',
  };
  const id = (await kit.inject('POST', '/api/v1/checks', check)).body.id as string;
  const run = (ts: number) => runFrame(id, ts);

  await kit.clock.advance(15_000);
  assert.deepEqual((await kit.send(token, [run(T0 + 3 * YEAR)])).body, { stored: 0, skipped: 1 });
  for (let i = 0; i < 3; i++) {
    await kit.clock.advance(15_000);
    assert.deepEqual((await kit.send(token, [run(kit.clock.now())])).body, { stored: 1, skipped: 0 });
  }
  assert.equal(kit.engine.get(id)!.rec.lastRunAt, kit.clock.now());
  assert.equal(kit.count('SELECT count(*) AS n FROM check_runs WHERE check_id = ?', id), 3);
});

test('frames far in the past: a sample goes to the charts alone, pruned with them', async (t) => {
  const kit = await hostServer();
  t.after(() => kit.server.dispose());
  const token = await kit.addHost('web-1');
  await kit.send(token, [sample(T0, { cpu: 10 })]);
  const old = T0 - 3 * YEAR;
  assert.deepEqual((await kit.send(token, [sample(old, { cpu: 90 })])).body, { stored: 1, skipped: 0 });
  const host = (await kit.inject('GET', '/api/v1/hosts/web-1')).body;
  assert.equal(host.now.ts, T0, 'the host stays at its newest sample');
  assert.equal(kit.count("SELECT count(*) AS n FROM host_rollups WHERE res = 'm' AND bucket = ?", old), 1);
  // Pruned by the hourly housekeeping like any rollup past its resolution's retention.
  await kit.clock.advance(3_600_000);
  await kit.server.hosts.pruned();
  assert.equal(kit.count('SELECT count(*) AS n FROM host_rollups WHERE bucket = ?', old), 0);
});
