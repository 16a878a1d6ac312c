import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir, within } from '../server/testing.ts';
import { startAgentProcess, startStandInServer, testToken } from './fixtures/stand-in-server.ts';
import { createAgentLog } from './log.ts';
import {
  claimSpool,
  fingerprint,
  holdStateDir,
  LOCK_FILE,
  OWNER_FILE,
  PREVIOUS_SPOOL,
  StateDirLocked,
} from './state-dir.ts';

const repo = join(import.meta.dirname, '..');
const hostRoot = join(import.meta.dirname, 'fixtures/host-root');
const otherToken = 'bth_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210abcd';

test('the spool belongs to one server and token: another one is moved aside, once, with one line', async (t) => {
  const state = tempDir('mon-state-');
  t.after(state.remove);
  const lines: string[] = [];
  const log = createAgentLog({ write: (line) => lines.push(line) });
  const server = new URL('https://mon.example.com');
  const spoolDir = join(state.dir, 'spool');
  mkdirSync(spoolDir);
  writeFileSync(join(spoolDir, '000000000001000-000000.json.gz'), 'old');

  // A spool from before the owner file is taken as this agent's.
  await claimSpool(state.dir, server, testToken, log);
  assert.deepEqual(readdirSync(spoolDir), ['000000000001000-000000.json.gz']);
  assert.equal(
    readFileSync(join(state.dir, OWNER_FILE), 'utf8'),
    `${fingerprint(`${server.href}\n${testToken}`)}\n`,
  );
  assert.ok(!readFileSync(join(state.dir, OWNER_FILE), 'utf8').includes(testToken));
  await claimSpool(state.dir, server, testToken, log);
  assert.deepEqual(lines, []);

  // Another token (a new one, or another agent's): the batches are not sent with it.
  await claimSpool(state.dir, server, otherToken, log);
  assert.ok(!existsSync(spoolDir));
  assert.deepEqual(readdirSync(join(state.dir, PREVIOUS_SPOOL)), ['000000000001000-000000.json.gz']);
  assert.equal(lines.length, 1);
  assert.match(
    lines[0]!,
    /warn the spool held 1 batch\(es\) for another server or host token .*moved to .*spool-previous, not sent/,
  );

  // Another server: the same; an empty spool is just taken.
  mkdirSync(spoolDir);
  await claimSpool(state.dir, new URL('https://other.example.com/mon'), otherToken, log);
  assert.equal(lines.length, 1);
});

test('a second agent on a state directory stops (exit 1); one killed leaves no stale lock; a new MON_SERVER does not get the old batches', async (t) => {
  const old = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 300 },
    checks: [],
    commands: [],
  });
  const fresh = await startStandInServer({
    host: 'web-1',
    settings: { sampleEveryMs: 300 },
    checks: [],
    commands: [],
  });
  const state = tempDir('mon-state-');
  const env = {
    PATH: process.env.PATH,
    MON_SERVER: old.url,
    MON_TOKEN: testToken,
    MON_HOST_ROOT: hostRoot,
    MON_STATE_DIR: state.dir,
  };
  const started: ReturnType<typeof startAgentProcess>[] = [];
  const start = (extra: Record<string, string> = {}) => {
    const agent = startAgentProcess(process.execPath, ['agent/main.ts'], {
      cwd: repo,
      env: { ...env, ...extra },
    });
    started.push(agent);
    return agent;
  };
  t.after(async () => {
    for (const agent of started) agent.kill();
    await old.close();
    await fresh.close();
    state.remove();
  });
  const first = start();
  await within(15_000, 'the first agent sending', () => old.posts().length >= 1);
  const second = start();
  assert.deepEqual(await second.exited, [1, null]);
  assert.match(
    second.stderr(),
    /error another mon agent \(pid \d+\) is running on the state directory .* \(MON_STATE_DIR\)/,
  );

  // Killed outright, with batches in the spool (the server busy): the next agent takes the directory.
  old.frames = () => ({ status: 503, headers: { 'retry-after': '60' } });
  await within(10_000, 'batches waiting', () => readdirSync(join(state.dir, 'spool')).length >= 2);
  first.child.kill('SIGKILL');
  await first.exited;
  const moved = start({ MON_SERVER: fresh.url });
  await within(15_000, 'the new server gets frames', () => fresh.posts().length >= 1);
  const frames = fresh.posts().flatMap((post) => fresh.framesOf(post));
  assert.equal(frames[0]?.kind, 'hello', 'the new server gets nothing from before');
  assert.match(moved.stderr(), /warn the spool held \d+ batch\(es\) for another server or host token/);
  assert.ok(readdirSync(join(state.dir, PREVIOUS_SPOOL)).length >= 2);
  moved.child.kill('SIGTERM');
  assert.deepEqual(await moved.exited, [0, null]);
});

test('the lock: held, a second hold is refused; released, or left by a process that is gone, it is taken', async (t) => {
  const state = tempDir('mon-state-');
  t.after(state.remove);
  const log = createAgentLog({ write: () => {} });
  const lock = await holdStateDir(state.dir, log);
  await assert.rejects(holdStateDir(state.dir, log), StateDirLocked);
  lock.release();
  assert.ok(!existsSync(join(state.dir, LOCK_FILE)));
  // A pid that runs, with another start time (reused since), and one that is not there: both gone.
  for (const stale of [`${process.pid} 1\n`, '4194303 12345\n', 'garbage']) {
    writeFileSync(join(state.dir, LOCK_FILE), stale);
    const taken = await holdStateDir(state.dir, log);
    assert.match(readFileSync(join(state.dir, LOCK_FILE), 'utf8'), new RegExp(`^${process.pid} \\d+\n$`));
    taken.release();
  }
});

test('two agents starting at once on a fresh state directory: one holds it, the other is refused', async (t) => {
  const log = createAgentLog({ write: () => {} });
  for (let round = 0; round < 50; round++) {
    const state = tempDir('mon-state-');
    t.after(state.remove);
    const both = await Promise.allSettled([holdStateDir(state.dir, log), holdStateDir(state.dir, log)]);
    const held = both.filter((r) => r.status === 'fulfilled');
    assert.equal(held.length, 1, `round ${round}: ${both.map((r) => r.status).join(', ')}`);
    const refused = both.find((r) => r.status === 'rejected');
    assert.ok(refused?.reason instanceof StateDirLocked, String(refused?.reason));
    assert.deepEqual(readdirSync(state.dir), [LOCK_FILE], 'no draft of the lock is left');
  }
});

test('a state directory where the lock cannot be written stops the agent with the line of an unusable directory', async (t) => {
  // Under /proc no file can be made, whoever runs the test (root ignores modes).
  const agent = startAgentProcess(process.execPath, ['agent/main.ts'], {
    cwd: repo,
    env: {
      PATH: process.env.PATH,
      MON_SERVER: 'http://127.0.0.1:9',
      MON_TOKEN: testToken,
      MON_HOST_ROOT: hostRoot,
      MON_STATE_DIR: '/proc/self/fdinfo',
    },
  });
  t.after(() => agent.kill());
  assert.deepEqual(await agent.exited, [1, null]);
  assert.match(agent.stderr(), /MON_STATE_DIR: cannot use \/proc\/self\/fdinfo \(E[A-Z]+\)/);
  assert.doesNotMatch(agent.stderr(), /at .*state-dir\.ts/, 'no stack');
});
