import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, test } from 'node:test';
import { containerSchema } from '../protocol/agent.ts';
import { FakeClock } from '../server/clock.ts';
import { type ContainerStatsResponse, inspectFieldsOf, memoryWithoutCache } from './docker/bodies.ts';
import { createContainerReader, defaultDockerSocket } from './docker.ts';
import { inspectBody } from './fixtures/docker-bodies.ts';
import { type EngineDouble, startEngineDouble } from './fixtures/docker-engine.ts';

const MiB = 2 ** 20;
const clock = new FakeClock();
let engine: EngineDouble;
/** Every request any double of this file got, to check at the end that mon only reads. */
const allRequests: { method: string; url: string }[] = [];

before(async () => {
  engine = await startEngineDouble({ now: () => clock.now() });
});
beforeEach(() => {
  allRequests.push(...engine.requests.splice(0));
  engine.containers.clear();
  engine.hang = false;
  engine.delayMs = 0;
  engine.mostAtOnce = 0;
});
after(async () => {
  allRequests.push(...engine.requests);
  await engine.close();
});

/** A reader of the double, closed when the test ends. */
function readerOf(
  t: { after: (fn: () => void) => void },
  socketPath = engine.socketPath,
  timeoutMs?: number,
  monotonic = () => clock.now(),
) {
  // The test's clock stands for the monotonic one too: time passes alike on both unless a test says.
  const reader = createContainerReader({ socketPath, ...(timeoutMs ? { timeoutMs } : {}), monotonic });
  t.after(() => reader.close());
  return reader;
}

const hoursAgo = (h: number) => clock.now() - h * 3_600_000;

async function sampleOf(reader: ReturnType<typeof createContainerReader>) {
  const samples = await reader.read(clock.now());
  assert.ok(samples, `no containers read: ${reader.problem()}`);
  for (const sample of samples) containerSchema.parse(sample); // what the server will accept
  return new Map(samples.map((sample) => [sample.name, sample]));
}

test('state, health, restarts, exit code, OOM kill, image and times as the Engine API gives them', async (t) => {
  const web = engine.add({
    name: 'shop-web-1',
    image: 'ghcr.io/acme/shop:2.4.1',
    health: 'healthy',
    startedAt: hoursAgo(3),
    labels: {
      'com.docker.compose.project': 'shop',
      'com.docker.compose.service': 'web',
      'mon.service': 'shop',
      'org.opencontainers.image.source': 'https://github.com/acme/shop',
    },
  });
  engine.add({ name: 'shop-worker-1', state: 'running', health: 'unhealthy', restartCount: 2 });
  engine.add({
    name: 'importer',
    state: 'exited',
    exitCode: 137,
    oomKilled: true,
    startedAt: hoursAgo(2),
    finishedAt: hoursAgo(1),
  });
  engine.add({
    name: 'flaky',
    state: 'restarting',
    exitCode: 1,
    restartCount: 7,
    finishedAt: clock.now() - 5000,
  });
  engine.add({ name: 'fresh', state: 'created', startedAt: null, health: 'starting' });
  engine.add({ name: 'frozen', state: 'paused' });

  const byName = await sampleOf(readerOf(t));
  const first = byName.get('shop-web-1');
  assert.deepEqual(first && { ...first, cpu: null, memory: null }, {
    id: web.id,
    name: 'shop-web-1',
    image: 'ghcr.io/acme/shop:2.4.1',
    imageId: web.imageId,
    state: 'running',
    health: 'healthy',
    restarts: 0,
    exitCode: null,
    oomKilled: false,
    startedAt: hoursAgo(3),
    finishedAt: null,
    cpu: null,
    memory: null,
    labels: {
      'com.docker.compose.project': 'shop',
      'com.docker.compose.service': 'web',
      'mon.service': 'shop',
    },
  });
  const pick = (name: string) => {
    const s = byName.get(name);
    return s && [s.state, s.health, s.restarts, s.exitCode, s.oomKilled];
  };
  assert.deepEqual(pick('shop-worker-1'), ['running', 'unhealthy', 2, null, false]);
  assert.deepEqual(pick('importer'), ['exited', null, 0, 137, true]);
  assert.deepEqual(pick('flaky'), ['restarting', null, 7, 1, false]);
  // A created container has never run: no start time, no health yet, no exit code.
  assert.deepEqual(pick('fresh'), ['created', null, 0, null, false]);
  assert.equal(byName.get('fresh')?.startedAt, null);
  assert.deepEqual(pick('frozen'), ['paused', null, 0, null, false]);
  assert.equal(byName.get('importer')?.finishedAt, hoursAgo(1));
  // Only running containers have CPU and memory; the others are not asked for stats.
  for (const name of ['importer', 'flaky', 'fresh', 'frozen']) {
    assert.deepEqual([byName.get(name)?.cpu, byName.get(name)?.memory], [null, null], name);
  }
  const statsAsked = engine.requests.filter((r) => r.url.includes('/stats')).length;
  assert.equal(statsAsked, 2);
});

test('CPU is percent of ONE CPU from total_usage over the wall time between two samples', async (t) => {
  const busy = engine.add({ name: 'busy', cpuUsageNs: 5e12 });
  const idle = engine.add({ name: 'idle', cpuUsageNs: 1e9 });
  const reader = readerOf(t);
  const first = await sampleOf(reader);
  assert.equal(first.get('busy')?.cpu, null, 'no previous sample of its own: one-shot stats have no precpu');

  await clock.advance(15_000);
  busy.cpuUsageNs += 30e9; // two cores flat out for 15 s
  idle.cpuUsageNs += 1.5e8; // 1 % of one core
  const second = await sampleOf(reader);
  assert.equal(second.get('busy')?.cpu, 200);
  assert.ok(Math.abs((second.get('idle')?.cpu ?? 0) - 1) < 1e-9);

  await clock.advance(15_000);
  busy.cpuUsageNs += 7.5e9;
  assert.equal((await sampleOf(reader)).get('busy')?.cpu, 50);
});

test("CPU is over the monotonic time between samples: the daemon's clock set back changes nothing", async (t) => {
  const busy = engine.add({ name: 'busy', cpuUsageNs: 5e12 });
  let monotonic = 0;
  const reader = readerOf(t, engine.socketPath, undefined, () => monotonic);
  await sampleOf(reader);
  // 15 s pass, but the host's clock (the daemon's `read` time, the sample's time stamp) was set back
  // by as much: its wall time did not move.
  monotonic += 15_000;
  busy.cpuUsageNs += 15e9;
  assert.equal((await sampleOf(reader)).get('busy')?.cpu, 100);
  // And stepped forward an hour: still 15 s of the monotonic clock.
  await clock.advance(3_600_000);
  monotonic += 15_000;
  busy.cpuUsageNs += 7.5e9;
  assert.equal((await sampleOf(reader)).get('busy')?.cpu, 50);
});

test('after a restart a container has no CPU figure until its second sample, and the restart is seen at once', async (t) => {
  // Up for hours: its list entry ("Up 5 hours") stays the same from sample to sample and its inspect is kept.
  const api = engine.add({ name: 'api', startedAt: hoursAgo(5), cpuUsageNs: 9e12 });
  const reader = readerOf(t);
  await sampleOf(reader);
  await clock.advance(15_000);
  api.cpuUsageNs += 3e9;
  assert.equal((await sampleOf(reader)).get('api')?.cpu, 20);

  await clock.advance(10_000);
  engine.restart(api, clock.now()); // crashed and was restarted by its policy, between two samples
  await clock.advance(5_000);
  api.cpuUsageNs = 2e9;
  const after = (await sampleOf(reader)).get('api');
  assert.deepEqual([after?.state, after?.restarts, after?.cpu], ['running', 1, null]);
  assert.equal(after?.startedAt, api.startedAt);

  await clock.advance(15_000);
  api.cpuUsageNs += 1.5e9;
  assert.equal((await sampleOf(reader)).get('api')?.cpu, 10);
});

test('memory leaves out the inactive file cache, on cgroup v2 and on cgroup v1', async (t) => {
  const memory = { anon: 120 * MiB, activeFile: 40 * MiB, inactiveFile: 300 * MiB, kernel: 6 * MiB };
  engine.add({ name: 'v2', cgroup: 2, memory });
  engine.add({ name: 'v1', cgroup: 1, memory });
  const byName = await sampleOf(readerOf(t));
  // usage − inactive_file (v2), usage − total_inactive_file (v1): anonymous, active file and kernel memory.
  assert.equal(byName.get('v2')?.memory, 166 * MiB);
  assert.equal(byName.get('v1')?.memory, 166 * MiB);
});

test('memory readings: v1 takes the hierarchical total, `cache` only when neither inactive count is there', () => {
  const of = (memory_stats: ContainerStatsResponse['memory_stats']) => memoryWithoutCache({ memory_stats });
  // A v1 cgroup with nested cgroups: its own inactive_file is only part of the hierarchy's.
  assert.equal(of({ usage: 1000, stats: { inactive_file: 100, total_inactive_file: 300, cache: 500 } }), 700);
  assert.equal(of({ usage: 1000, stats: { inactive_file: 100 } }), 900);
  assert.equal(of({ usage: 1000, stats: { cache: 500 } }), 500);
  assert.equal(of({ usage: 1000, stats: {} }), 1000);
  // Counters read a moment apart: a cache above the usage leaves the usage, as `docker stats` shows it.
  assert.equal(of({ usage: 1000, stats: { inactive_file: 1200 } }), 1000);
  assert.equal(of({}), null);
  assert.equal(of(undefined), null);
});

test('a container recreated from a new image shows the new image id', async (t) => {
  const old = engine.add({ name: 'shop-web-1', image: 'ghcr.io/acme/shop:latest', startedAt: hoursAgo(30) });
  const reader = readerOf(t);
  const before = (await sampleOf(reader)).get('shop-web-1');
  assert.equal(before?.imageId, old.imageId);

  await clock.advance(15_000);
  engine.containers.delete(old.id);
  const recreated = engine.add({
    name: 'shop-web-1',
    image: 'ghcr.io/acme/shop:latest',
    imageId: `sha256:${'b'.repeat(64)}`,
    startedAt: clock.now() - 3000,
  });
  const after = (await sampleOf(reader)).get('shop-web-1');
  assert.deepEqual(
    [after?.id, after?.imageId, after?.image],
    [recreated.id, `sha256:${'b'.repeat(64)}`, 'ghcr.io/acme/shop:latest'],
  );
});

test('an inspect is asked again only when the list entry changed, or after a minute', async (t) => {
  const settled = engine.add({ name: 'settled', startedAt: hoursAgo(6) });
  const young = engine.add({ name: 'young', startedAt: clock.now() - 2000 });
  const reader = readerOf(t);
  const inspects = (c: { id: string }) =>
    engine.requests.filter((r) => r.url.endsWith(`/containers/${c.id}/json`)).length;

  await sampleOf(reader);
  for (let i = 0; i < 3; i++) {
    await clock.advance(15_000);
    await sampleOf(reader);
  }
  // "Up 6 hours" four times: one inspect. "Up 2 seconds", "Up 17 seconds"…: one per sample.
  assert.deepEqual([inspects(settled), inspects(young)], [1, 4]);

  await clock.advance(15_000); // a minute since the first inspect
  await sampleOf(reader);
  assert.equal(inspects(settled), 2);

  await clock.advance(15_000);
  settled.health = 'unhealthy'; // "Up 6 hours (unhealthy)"
  assert.equal((await sampleOf(reader)).get('settled')?.health, 'unhealthy');
  assert.equal(inspects(settled), 3);
});

test('50 containers: one list, one stats answer per running container, inspects only when something changed', async (t) => {
  for (let i = 0; i < 50; i++) {
    engine.add({
      name: `app-${i}`,
      state: i % 10 === 9 ? 'exited' : 'running',
      startedAt: hoursAgo(10),
      finishedAt: i % 10 === 9 ? hoursAgo(5) : null,
      cgroup: i % 2 === 0 ? 2 : 1,
      cpuUsageNs: i * 1e9,
      labels: { 'com.docker.compose.project': 'fleet', 'com.docker.compose.service': `app-${i}` },
    });
  }
  const reader = readerOf(t);
  const count = (pattern: RegExp) => engine.requests.filter((r) => pattern.test(r.url)).length;
  assert.equal((await sampleOf(reader)).size, 50);
  assert.deepEqual([count(/\/containers\/json/), count(/\/json$/), count(/\/stats/)], [1, 50, 45]);

  const mark = engine.requests.length;
  await clock.advance(15_000);
  for (const c of engine.containers.values()) c.cpuUsageNs += 1.5e9;
  const second = await sampleOf(reader);
  assert.equal(second.size, 50);
  assert.deepEqual(
    engine.requests
      .slice(mark)
      .map((r) => r.url.replace(/[0-9a-f]{64}/, '{id}'))
      .sort(),
    [
      '/v1.47/containers/json?all=true',
      ...Array(45).fill('/v1.47/containers/{id}/stats?stream=false&one-shot=true'),
    ].sort(),
  );
  assert.equal(second.get('app-3')?.cpu, 10);
});

test('at most 8 requests to the runtime are under way at once, on connections kept from sample to sample', async (t) => {
  for (let i = 0; i < 30; i++) engine.add({ name: `app-${i}` });
  engine.delayMs = 20; // a busy daemon, so that requests overlap
  const reader = readerOf(t);
  const opened = engine.connections;
  assert.equal((await sampleOf(reader)).size, 30);
  assert.equal(engine.mostAtOnce, 8);
  await clock.advance(15_000);
  assert.equal((await sampleOf(reader)).size, 30);
  assert.equal(engine.connections - opened, 8);
});

test('a kept connection the runtime closed is asked again on a new one', async (t) => {
  for (let i = 0; i < 20; i++) engine.add({ name: `app-${i}`, cpuUsageNs: 1e9 });
  const reader = readerOf(t);
  await sampleOf(reader);
  await clock.advance(15_000);
  for (const c of engine.containers.values()) c.cpuUsageNs += 1.5e9;
  engine.resetKept = 5;
  const second = await sampleOf(reader);
  assert.equal(engine.resetKept, 0);
  assert.equal(second.size, 20);
  assert.deepEqual(new Set([...second.values()].map((s) => s.cpu)), new Set([10]));
});

test('the API version is the preferred one, or what an older or newer daemon speaks', async (t) => {
  engine.add({ name: 'one' });
  const asked = async (version: { ApiVersion: string; MinAPIVersion: string }) => {
    engine.version = version;
    const mark = engine.requests.length;
    await sampleOf(readerOf(t));
    return engine.requests.slice(mark).find((r) => r.url.includes('/containers/json'))?.url;
  };
  assert.equal(await asked({ ApiVersion: '1.51', MinAPIVersion: '1.24' }), '/v1.47/containers/json?all=true');
  assert.equal(await asked({ ApiVersion: '1.40', MinAPIVersion: '1.12' }), '/v1.40/containers/json?all=true');
  assert.equal(await asked({ ApiVersion: '1.60', MinAPIVersion: '1.50' }), '/v1.50/containers/json?all=true');
  engine.version = { ApiVersion: '1.51', MinAPIVersion: '1.24' };
});

test('no runtime gives null, never a throw: a socket that is not there, one that closed, one that hangs', async (t) => {
  const missing = readerOf(t, join(tmpdir(), 'mon-no-such-dir', 'docker.sock'));
  assert.equal(await missing.read(clock.now()), null);
  assert.match(missing.problem() ?? '', /^no container runtime at .*docker\.sock: .*ENOENT/);

  const gone = await startEngineDouble({ now: () => clock.now() });
  gone.add({ name: 'web' });
  const reader = readerOf(t, gone.socketPath);
  assert.equal((await reader.read(clock.now()))?.length, 1);
  assert.equal(reader.problem(), null);
  allRequests.push(...gone.requests);
  await gone.close();
  assert.equal(await reader.read(clock.now()), null);

  engine.hang = true;
  const started = performance.now();
  const stuck = readerOf(t, engine.socketPath, 300);
  assert.equal(await stuck.read(clock.now()), null);
  assert.match(stuck.problem() ?? '', /no answer in time/);
  assert.ok(performance.now() - started < 3000);
});

test('mon only reads: every request any double got was a GET', () => {
  const seen = [...allRequests, ...engine.requests];
  assert.ok(seen.length > 200, `only ${seen.length} requests seen`);
  assert.deepEqual([...new Set(seen.map((r) => r.method))], ['GET']);
});

test('the double answers what it does not serve with 404 and an Engine API error body', async () => {
  const http = await import('node:http');
  const ask = (method: string, path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request({ socketPath: engine.socketPath, method, path }, (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  assert.deepEqual(await ask('GET', '/_ping'), { status: 200, body: 'OK' });
  assert.deepEqual(await ask('GET', '/v1.47/containers/nope/json'), {
    status: 404,
    body: '{"message":"No such container: nope"}\n',
  });
  assert.deepEqual(await ask('POST', '/v1.47/containers/create'), {
    status: 404,
    body: '{"message":"page not found"}\n',
  });
  engine.requests.length = 0; // the POST above is the test's own, not mon's
});

test('the default socket is the host’s, through MON_HOST_ROOT, when it is there', () => {
  const root = mkdtempSync(join(tmpdir(), 'mon-root-'));
  try {
    assert.equal(defaultDockerSocket(root), '/var/run/docker.sock');
    mkdirSync(join(root, 'var/run'), { recursive: true });
    writeFileSync(join(root, 'var/run/docker.sock'), '');
    assert.equal(defaultDockerSocket(root), join(root, 'var/run/docker.sock'));
    mkdirSync(join(root, 'run'), { recursive: true });
    writeFileSync(join(root, 'run/docker.sock'), '');
    assert.equal(defaultDockerSocket(root), join(root, 'run/docker.sock'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('without Docker: Podman’s socket, else a rootless Docker’s or Podman’s, the lowest uid first', () => {
  const root = mkdtempSync(join(tmpdir(), 'mon-root-'));
  const touch = (path: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), '');
  };
  try {
    touch('run/user/1000/podman/podman.sock');
    touch('run/user/not-a-uid/docker.sock');
    assert.equal(defaultDockerSocket(root), join(root, 'run/user/1000/podman/podman.sock'));
    touch('run/user/1000/docker.sock');
    assert.equal(defaultDockerSocket(root), join(root, 'run/user/1000/docker.sock'));
    touch('run/user/999/docker.sock');
    assert.equal(defaultDockerSocket(root), join(root, 'run/user/999/docker.sock'));
    touch('run/podman/podman.sock');
    assert.equal(defaultDockerSocket(root), join(root, 'run/podman/podman.sock'));
    touch('run/docker.sock');
    assert.equal(defaultDockerSocket(root), join(root, 'run/docker.sock'));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('of an inspect, the reader keeps only the fields samples read', () => {
  const container = engine.add({ name: 'web', health: 'unhealthy', restartCount: 2 });
  const body = inspectBody(container);
  assert.deepEqual(inspectFieldsOf(body), {
    Image: container.imageId,
    RestartCount: 2,
    State: {
      Status: 'running',
      OOMKilled: false,
      ExitCode: 0,
      StartedAt: body.State.StartedAt,
      FinishedAt: body.State.FinishedAt,
      Health: { Status: 'unhealthy' },
    },
    Config: { Image: 'nginx:1.27' },
  });
});

test('a list entry the reader cannot make sense of is left out; the read never rejects', async (t) => {
  // A runtime that lists something other than containers among them (a bug, a proxy in between).
  const dir = mkdtempSync(join(tmpdir(), 'mon-odd-engine-'));
  const socketPath = join(dir, 'docker.sock');
  const odd = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/version') return res.end(JSON.stringify({ ApiVersion: '1.43', MinAPIVersion: '1.24' }));
    if (/^\/v[\d.]+\/containers\/json/.test(req.url ?? '')) return res.end(JSON.stringify([null, 42, 'web']));
    res.statusCode = 404;
    res.end(JSON.stringify({ message: 'page not found' }));
  });
  await new Promise<void>((resolve) => odd.listen(socketPath, resolve));
  t.after(async () => {
    await new Promise((resolve) => odd.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });
  const reader = readerOf(t, socketPath);
  assert.deepEqual(await reader.read(clock.now()), []);
  assert.equal(reader.problem(), null);
});
