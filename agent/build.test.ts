import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, test } from 'node:test';
import { tempDir, within } from '../server/testing.ts';
import { agentFileStale, agentFileVersion, buildAgent } from './build.ts';
import { startAgentProcess, startStandInServer, testToken } from './fixtures/stand-in-server.ts';
import packageJson from './package.json' with { type: 'json' };

/**
 * The promise of the one-file agent: a host needs nothing but Node. The bundle is copied alone into an
 * empty directory (no node_modules anywhere above it) and run there with the system's Node 20 when it
 * has one (/usr/bin/node), the oldest Node the agent supports.
 */
const systemNode = (() => {
  const run = existsSync('/usr/bin/node')
    ? spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' })
    : null;
  const major = Number(/^v(\d+)\./.exec(run?.stdout ?? '')?.[1] ?? 0);
  return major >= 20 ? '/usr/bin/node' : process.execPath;
})();

let built: { dir: string; remove: () => void };
let file = '';
let version = '';
before(async () => {
  built = tempDir('mon-agent-build-');
  const bundled = await buildAgent(join(built.dir, 'build/mon-agent.mjs'));
  version = bundled.version;
  // Alone in an empty directory.
  file = join(built.dir, 'mon-agent.mjs');
  copyFileSync(bundled.file, file);
});
after(() => built.remove());

test('the build is one file of ASCII with every import inlined but Node built-ins', () => {
  // The file, and beside it the list of sources it was built from (for the server: agentFileStale).
  assert.deepEqual(readdirSync(join(built.dir, 'build')).sort(), [
    'mon-agent.mjs',
    'mon-agent.mjs.sources.json',
  ]);
  const code = readFileSync(file, 'utf8');
  assert.match(code, /^#!\/usr\/bin\/env node\n/);
  // Minified: `import{createRequire as e}from"node:module"`, and `import("…")` for a dynamic one.
  const imports = [...code.matchAll(/\bimport\s*(?:[\w$*{},\s]+?\s*from\s*|\(\s*)["'`]([^"'`]+)["'`]/g)].map(
    (m) => m[1]!,
  );
  assert.ok(imports.length > 0);
  for (const name of imports) assert.match(name, /^node:/, `${name} would need an install on the host`);
  // ASCII only: V8 holds the source in memory, as two bytes a character if one is beyond Latin-1.
  assert.equal(Buffer.byteLength(code), code.length, 'the bundle has characters beyond ASCII');
});

test(`the bundle runs alone with ${systemNode}: --version`, () => {
  const run = spawnSync(systemNode, [file, '--version'], {
    cwd: built.dir,
    env: { PATH: '/usr/bin:/bin' },
    encoding: 'utf8',
  });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout, `mon-agent ${version}\n`);
});

test("the bundle's version is the package's and a hash of its code: the same code gives the same one, and the file's head names it for the server", async () => {
  assert.match(version, new RegExp(`^${packageJson.version.replaceAll('.', '\\.')}\\+[0-9a-f]{12}$`));
  assert.equal(agentFileVersion(readFileSync(file, 'utf8')), version);
  const again = await buildAgent(join(built.dir, 'again/mon-agent.mjs'));
  assert.equal(again.version, version, 'built twice, elsewhere: the same version');
  // Run from the sources, it is not a build: it never reads as the served one.
  const source = spawnSync(process.execPath, [join(import.meta.dirname, 'main.ts'), '--version'], {
    encoding: 'utf8',
  });
  assert.equal(source.stdout, `mon-agent ${packageJson.version}+source\n`);
  // A file built before builds had a hash names none.
  assert.equal(agentFileVersion('#!/usr/bin/env node\n// mon agent 0.1.0: one self-contained file'), null);
});

test(`the bundle runs alone with ${systemNode}: it sends its hello and a sample, and stops on SIGTERM`, async () => {
  const server = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 15_000 },
    checks: [],
    commands: [],
  });
  const state = tempDir('mon-agent-state-');
  const agent = startAgentProcess(systemNode, [file], {
    cwd: built.dir,
    env: {
      PATH: '/usr/bin:/bin',
      MON_SERVER: server.url,
      MON_TOKEN: testToken,
      MON_HOST_ROOT: join(import.meta.dirname, 'fixtures/host-root'),
      MON_STATE_DIR: state.dir,
    },
  });
  try {
    await within(15_000, 'the first frames', () => server.posts().length >= 1);
    const frames = server.framesOf(server.posts()[0]!);
    const hello = frames.find((f) => f.kind === 'hello');
    assert.equal(hello?.kind === 'hello' ? hello.hostname : null, 'web-1');
    assert.equal(hello?.kind === 'hello' ? hello.agentVersion : null, version, 'the hello says the build');
    assert.ok(frames.some((f) => f.kind === 'sample'));
    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, [0, null]);
    assert.doesNotMatch(agent.stderr(), / error /);
  } finally {
    agent.kill();
    await server.close();
    state.remove();
  }
});

test(`the bundle on a host without systemctl and with a plain HTTP server (the Docker install's shape) loads neither node:child_process nor TLS`, async () => {
  const server = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 15_000 },
    checks: [],
    commands: [],
  });
  const state = tempDir('mon-agent-state-');
  // What Node loaded, written when the agent exits.
  const loaded = join(state.dir, 'loaded.txt');
  const preload = join(state.dir, 'loaded.cjs');
  writeFileSync(
    preload,
    `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(loaded)}, process.moduleLoadList.join('\\n')));\n`,
  );
  const agent = startAgentProcess(systemNode, ['--require', preload, file], {
    cwd: built.dir,
    env: {
      PATH: state.dir,
      MON_SERVER: server.url,
      MON_TOKEN: testToken,
      MON_HOST_ROOT: join(import.meta.dirname, 'fixtures/host-root'),
      MON_STATE_DIR: join(state.dir, 'state'),
    },
  });
  try {
    await within(15_000, 'the first frames', () => server.posts().length >= 1);
    assert.ok(server.framesOf(server.posts()[0]!).some((f) => f.kind === 'sample'));
    agent.child.kill('SIGTERM');
    assert.deepEqual(await agent.exited, [0, null]);
    const modules = readFileSync(loaded, 'utf8').split('\n');
    assert.ok(modules.includes('NativeModule http'), 'what Node loaded is read');
    for (const name of ['child_process', 'tls', 'https'])
      assert.ok(!modules.includes(`NativeModule ${name}`), `${name} is loaded`);
  } finally {
    agent.kill();
    await server.close();
    state.remove();
  }
});

test('the built file is stale once a source it was built from is newer, or its list of sources is missing', async () => {
  const dir = join(built.dir, 'build');
  const bundled = join(dir, 'mon-agent.mjs');
  assert.equal(await agentFileStale(bundled), false);
  const sources = JSON.parse(readFileSync(`${bundled}.sources.json`, 'utf8')) as string[];
  assert.ok(sources.includes('agent/main.ts') && sources.includes('runners/http.ts'), sources.join(' '));
  assert.ok(!sources.some((s) => s.includes('node_modules')));
  // A source changed after the build (a stand-in listed beside the real ones).
  const source = join(dir, 'changed.ts');
  writeFileSync(source, '');
  const later = new Date(Date.now() + 60_000);
  utimesSync(source, later, later);
  const project = join(import.meta.dirname, '..');
  writeFileSync(`${bundled}.sources.json`, JSON.stringify([...sources, relative(project, source)]));
  assert.equal(await agentFileStale(bundled), true);
  rmSync(`${bundled}.sources.json`);
  assert.equal(await agentFileStale(bundled), true);
  assert.equal(await agentFileStale(join(dir, 'missing.mjs')), true);
});
