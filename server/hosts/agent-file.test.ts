import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildAgent } from '../../agent/build.ts';
import { buildApp } from '../app.ts';
import { FakeClock } from '../clock.ts';
import { createTestServer, memoryLog, type TestServer, tempDir } from '../testing.ts';
import { registerAgentFile } from './agent-file.ts';

let server: TestServer;
const files = tempDir('mon-agent-file-');
before(async () => {
  server = await createTestServer();
});
after(async () => {
  await server.dispose();
  files.remove();
});

/** An app with only the agent file's route, serving `file` (built with `build` when missing). */
function appServing(
  file: string,
  build: (file: string) => Promise<unknown>,
  deps = server.deps,
  stale?: (file: string) => Promise<boolean>,
): FastifyInstance {
  return buildApp(deps, {
    authenticate: async () => null,
    features: [
      {
        name: 'agent-file',
        routes: (app) => registerAgentFile(app, deps, { file, build, ...(stale && { stale }) }),
      },
    ],
  });
}

test('the server serves the agent file to anyone: JavaScript, an ETag, no-cache; 304 for the ETag a host has', async () => {
  const first = await server.app.inject({ method: 'GET', url: '/agent/v1/agent.mjs' });
  assert.equal(first.statusCode, 200);
  assert.equal(first.headers['content-type'], 'text/javascript; charset=utf-8');
  assert.equal(first.headers['cache-control'], 'no-cache');
  assert.match(first.body, /^#!\/usr\/bin\/env node\n\/\/ mon agent /);
  const etag = String(first.headers.etag);
  assert.match(etag, /^"[\w-]{32}"$/);
  const again = await server.app.inject({
    method: 'GET',
    url: '/agent/v1/agent.mjs',
    headers: { 'if-none-match': etag },
  });
  assert.equal(again.statusCode, 304);
  assert.equal(again.body, '');
  const other = await server.app.inject({
    method: 'GET',
    url: '/agent/v1/agent.mjs',
    headers: { 'if-none-match': '"older"' },
  });
  assert.equal(other.statusCode, 200);
});

test('a missing file is built by the first request; requests meanwhile wait for that one build', async () => {
  const file = join(files.dir, 'first/mon-agent.mjs');
  let builds = 0;
  const app = appServing(file, (path) => {
    builds++;
    return buildAgent(path);
  });
  try {
    const answers = await Promise.all([
      app.inject({ method: 'GET', url: '/agent/v1/agent.mjs' }),
      app.inject({ method: 'GET', url: '/agent/v1/agent.mjs' }),
    ]);
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [200, 200],
    );
    assert.equal(builds, 1);
    assert.ok(existsSync(file));
    assert.equal(answers[0]!.headers.etag, answers[1]!.headers.etag);

    // A rebuilt file is served anew, with its own ETag.
    const before = String(answers[0]!.headers.etag);
    writeFileSync(file, 'console.log("a newer agent");\n');
    const changed = await app.inject({
      method: 'GET',
      url: '/agent/v1/agent.mjs',
      headers: { 'if-none-match': before },
    });
    assert.equal(changed.statusCode, 200);
    assert.equal(changed.body, 'console.log("a newer agent");\n');
    assert.notEqual(changed.headers.etag, before);
    assert.equal(builds, 1);
  } finally {
    await app.close();
  }
});

test('a file that cannot be built answers 503 with Retry-After, says why in the log, and is tried again a minute later', async () => {
  const log = memoryLog();
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const file = join(files.dir, 'never/mon-agent.mjs');
  let builds = 0;
  const app = appServing(
    file,
    async () => {
      builds++;
      throw new Error("Cannot find package 'rolldown'");
    },
    { ...server.deps, log: log.log, clock },
  );
  try {
    const answer = await app.inject({ method: 'GET', url: '/agent/v1/agent.mjs' });
    assert.equal(answer.statusCode, 503);
    assert.equal(answer.headers['retry-after'], '60');
    assert.match(answer.json().detail, /run npm install \(with dev dependencies\) on the server/);
    assert.match(log.text(), /cannot build the agent file.*rolldown/);
    assert.equal(builds, 1);

    // Within the minute: 503 at once, no new build, Retry-After the time left.
    await clock.advance(20_500);
    const soon = await app.inject({ method: 'GET', url: '/agent/v1/agent.mjs' });
    assert.equal(soon.statusCode, 503);
    assert.equal(soon.headers['retry-after'], '40');
    assert.match(soon.json().detail, /run npm install/);
    assert.equal(builds, 1, 'a failed build is not started again by every request');

    await clock.advance(39_500);
    const later = await app.inject({ method: 'GET', url: '/agent/v1/agent.mjs' });
    assert.equal(later.statusCode, 503);
    assert.equal(builds, 2, 'tried again after a minute');
    assert.equal(log.text().match(/cannot build the agent file/g)?.length, 2);
  } finally {
    await app.close();
  }
});

test('a file older than its sources is built again by the first request; where it cannot be, it is served as it is', async () => {
  const file = join(files.dir, 'stale/mon-agent.mjs');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, 'console.log("an old agent");\n');
  let builds = 0;
  const rebuilt = appServing(
    file,
    async (path) => {
      builds++;
      writeFileSync(path, 'console.log("the agent of these sources");\n');
    },
    server.deps,
    async () => true,
  );
  try {
    const answers = await Promise.all(
      [1, 2].map(() => rebuilt.inject({ method: 'GET', url: '/agent/v1/agent.mjs' })),
    );
    assert.deepEqual(
      answers.map((a) => a.body),
      ['console.log("the agent of these sources");\n', 'console.log("the agent of these sources");\n'],
    );
    await rebuilt.inject({ method: 'GET', url: '/agent/v1/agent.mjs' });
    assert.equal(builds, 1, 'looked at once per process');
  } finally {
    await rebuilt.close();
  }

  const log = memoryLog();
  writeFileSync(file, 'console.log("an old agent");\n');
  const deps = { ...server.deps, log: log.log };
  const stuck = appServing(
    file,
    async () => {
      throw new Error('rolldown is not installed');
    },
    deps,
    async () => true,
  );
  try {
    const answer = await stuck.inject({ method: 'GET', url: '/agent/v1/agent.mjs' });
    assert.equal(answer.statusCode, 200);
    assert.equal(answer.body, 'console.log("an old agent");\n');
    assert.match(log.text(), /older than its sources and cannot be built here/);
  } finally {
    await stuck.close();
  }
});
