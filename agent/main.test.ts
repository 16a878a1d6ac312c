import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { gunzipSync } from 'node:zlib';
import type { DeclareFrame, HelloFrame, RunFrame, SampleFrame } from '../protocol/agent.ts';
import { tempDir, within } from '../server/testing.ts';
import { delayToPhase } from './checks.ts';
import { startEngineDouble } from './fixtures/docker-engine.ts';
import { startAgentProcess, startStandInServer, testToken } from './fixtures/stand-in-server.ts';

const repo = join(import.meta.dirname, '..');
const hostRoot = join(import.meta.dirname, 'fixtures/host-root');

test('the agent process: frames arrive gzipped with the token; a 503 keeps them in the spool, sent in order after; SIGTERM stops it', async () => {
  const server = await startStandInServer({
    host: 'web-1',
    // Samples every 300 ms instead of 15 s, as the server's poll may say.
    settings: { sampleEveryMs: 300 },
    checks: [],
    commands: [],
  });
  const state = tempDir('mon-agent-state-');
  const agent = startAgentProcess(process.execPath, ['agent/main.ts'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      MON_SERVER: server.url,
      MON_TOKEN: testToken,
      MON_HOST_ROOT: hostRoot,
      MON_STATE_DIR: state.dir,
    },
  });
  const spooled = () => readdirSync(join(state.dir, 'spool')).length;
  try {
    await within(15_000, 'three batches stored', () => server.posts().length >= 3);
    for (const post of server.posts()) {
      assert.equal(post.headers.authorization, `Bearer ${testToken}`);
      assert.equal(post.headers['content-encoding'], 'gzip');
    }
    const early = server.posts().flatMap((post) => server.framesOf(post));
    const hello = early.find((f): f is HelloFrame => f.kind === 'hello');
    assert.equal(hello?.hostname, 'web-1');
    assert.equal(hello?.os, 'Debian GNU/Linux 12 (bookworm)');
    assert.equal(hello?.cores, 2);
    const declare = early.find((f): f is DeclareFrame => f.kind === 'declare');
    assert.deepEqual(declare?.checks, [
      {
        name: 'queue-length',
        service: 'shop',
        command: "echo 'queue 3'",
        everyMs: 10_000,
        timeoutMs: 10_000,
      },
    ]);
    assert.ok(early.some((f) => f.kind === 'sample'));
    assert.ok(
      early.some(
        (f) =>
          f.kind === 'log' && f.lines.some((l) => l.text.includes('the server knows this host as web-1')),
      ),
    );

    // The server goes busy: batches wait in the spool.
    server.frames = () => ({ status: 503, headers: { 'retry-after': '1' } });
    const before = server.posts().length;
    await within(10_000, 'three batches waiting in the spool', () => spooled() >= 3);
    const refused = server
      .posts()
      .slice(before)
      .filter((post) => server.statusOf(post) === 503);
    assert.ok(refused.length >= 1);

    // Back: every sample arrives, oldest first, none twice.
    server.frames = () => ({ status: 200, body: { stored: 1, skipped: 0 } });
    await within(10_000, 'the spool empty', () => spooled() === 0);
    const stored = server.posts().filter((post) => server.statusOf(post) === 200);
    const samples = stored
      .flatMap((post) => server.framesOf(post))
      .filter((f): f is SampleFrame => f.kind === 'sample');
    const times = samples.map((s) => s.ts);
    assert.deepEqual(
      times,
      [...times].sort((a, b) => a - b),
      'samples arrive in the order they were taken',
    );
    assert.equal(new Set(times).size, times.length, 'none twice');
    const refusedSamples = refused
      .flatMap((post) => server.framesOf(post))
      .filter((f) => f.kind === 'sample');
    for (const sample of refusedSamples)
      assert.ok(times.includes(sample.ts), 'a sample refused with 503 came later');

    agent.child.kill('SIGTERM');
    const [code] = await agent.exited;
    assert.equal(code, 0);
    assert.match(agent.stderr(), /info SIGTERM: flushing into the spool/);
    assert.match(agent.stderr(), /info stopped\n$/);
    assert.doesNotMatch(agent.stderr(), new RegExp(testToken));
    // What was gathered since the last send waits in the spool, and goes first when the agent starts again.
    assert.ok(spooled() >= 1);
    const postsBefore = server.posts().length;
    const again = startAgentProcess(process.execPath, ['agent/main.ts'], { cwd: repo, env: agent.env });
    try {
      await within(15_000, 'the batch of the last run sent', () => server.posts().length > postsBefore);
      const first = server.framesOf(server.posts()[postsBefore]!);
      assert.ok(first.some((f) => f.kind === 'log' && f.lines.some((l) => l.text === 'stopping')));
      assert.ok(!first.some((f) => f.kind === 'hello'), 'the new hello comes after');
      again.child.kill('SIGTERM');
      assert.deepEqual(await again.exited, [0, null]);
    } finally {
      again.kill();
    }
  } finally {
    agent.kill();
    await server.close();
    state.remove();
  }
});

test('DOCKER_HOST names the runtime socket the agent reads (Podman, rootless Docker); tcp:// stops it with exit 2; an unused HTTPS_PROXY is said', async () => {
  const engine = await startEngineDouble();
  engine.add({ name: 'podman-web' });
  const server = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 300 },
    checks: [],
    commands: [],
  });
  const state = tempDir('mon-agent-state-');
  const env = {
    PATH: process.env.PATH,
    MON_SERVER: server.url,
    MON_TOKEN: testToken,
    MON_HOST_ROOT: hostRoot,
    MON_STATE_DIR: state.dir,
  };
  const agent = startAgentProcess(process.execPath, ['agent/main.ts'], {
    cwd: repo,
    env: { ...env, DOCKER_HOST: `unix://${engine.socketPath}`, HTTPS_PROXY: 'http://proxy.invalid:3128' },
  });
  try {
    const containers = () =>
      server
        .posts()
        .flatMap((post) => server.framesOf(post))
        .filter((f): f is SampleFrame => f.kind === 'sample')
        .flatMap((f) => f.containers ?? []);
    await within(15_000, 'a sample with the container', () => containers().length > 0);
    assert.equal(containers()[0]?.name, 'podman-web');
    // A proxy is not silently ignored: a plain http:// server is not reached through it, and it says so.
    assert.match(agent.stderr(), /warn HTTPS_PROXY is set but not used for a plain http:\/\/ MON_SERVER/);
    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, [0, null]);

    const refused = startAgentProcess(process.execPath, ['agent/main.ts'], {
      cwd: repo,
      env: { ...env, DOCKER_HOST: 'tcp://10.0.0.5:2376' },
    });
    assert.deepEqual(await refused.exited, [2, null]);
    assert.match(refused.stderr(), /error DOCKER_HOST must be a unix socket/);
  } finally {
    agent.kill();
    await server.close();
    await engine.close();
    state.remove();
  }
});

test('a command check gets the agent environment without MON_*: a secret in it stays on the host, the command line as written goes to mon', async () => {
  const dir = tempDir('mon-agent-checks-');
  const checksFile = join(dir.dir, 'checks.toml');
  writeFileSync(
    checksFile,
    [
      '[[check]]',
      'name = "db-login"',
      'service = "shop"',
      // The value stays in the environment; the command names it, as `$DB_PASSWORD` would be passed on.
      `command = '''test -n "$DB_PASSWORD" && echo "password of \${#DB_PASSWORD} characters, token \${MON_TOKEN:-not set}"'''`,
      'from = "web-1"',
      'every = "10s"',
      '',
    ].join('\n'),
  );
  // An id whose run comes about 3 s from now (each check runs at a point of its interval its id decides).
  const id = Array.from({ length: 1000 }, (_, i) => `k${i}`).find((k) => {
    const delay = delayToPhase(k, 10_000, Date.now());
    return delay > 3000 && delay < 4000;
  })!;
  const server = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 300 },
    checks: [],
    commands: [{ id, name: 'db-login' }],
  });
  const state = tempDir('mon-agent-state-');
  const agent = startAgentProcess(process.execPath, ['agent/main.ts'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      // As /etc/mon-agent/env gives it to the agent (EnvironmentFile=, or `set -a; . …` in Docker).
      DB_PASSWORD: 's3cret-value',
      MON_SERVER: server.url,
      MON_TOKEN: testToken,
      MON_HOST_ROOT: hostRoot,
      MON_STATE_DIR: state.dir,
      MON_CHECKS: checksFile,
    },
  });
  const frames = () => server.posts().flatMap((post) => server.framesOf(post));
  try {
    await within(15_000, 'a run of the command check', () => frames().some((f) => f.kind === 'run'));
    const run = frames().find((f): f is RunFrame => f.kind === 'run');
    assert.deepEqual(
      [run?.id, run?.status, run?.detail],
      [id, 'up', 'password of 12 characters, token not set'],
    );
    const declare = frames().find((f): f is DeclareFrame => f.kind === 'declare');
    // The declaration carries the command line as written (shown to whoever may read the check), and
    // no request carries the value.
    assert.match(declare?.checks[0]?.command ?? '', /^test -n "\$DB_PASSWORD" && echo/);
    for (const post of server.posts()) assert.ok(!gunzipSync(post.bytes).toString().includes('s3cret-value'));
    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, [0, null]);
  } finally {
    agent.kill();
    await server.close();
    state.remove();
    dir.remove();
  }
});
