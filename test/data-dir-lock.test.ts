import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../server/testing.ts';
import { startServerProcess } from './server-process.ts';

const main = join(import.meta.dirname, '..', 'server', 'main.ts');

/** Runs `node server/main.ts` to its end: its exit code and its log. */
async function runToExit(env: Record<string, string>): Promise<{ code: number | null; log: string }> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, MON_LISTEN: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    log += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code, log };
}

test('one server per data directory: a second refuses at start; the lock is free after SIGTERM and after kill -9', async (t) => {
  const data = tempDir();
  t.after(data.remove);
  const env = { MON_DATA_DIR: data.dir };
  const first = await startServerProcess(env);
  t.after(() => first.child.kill('SIGKILL'));

  const second = await runToExit(env);
  assert.equal(second.code, 1, second.log);
  const lines = second.log.trim().split('\n');
  assert.equal(lines.length, 1, `one line: ${second.log}`);
  const line = JSON.parse(lines[0]!) as { level: string; message: string };
  assert.equal(line.level, 'error');
  assert.ok(line.message.includes(data.dir), line.message);
  assert.match(line.message, /another mon is running/);
  assert.equal((await fetch(`${first.address}/healthz`)).status, 200, 'the first one is untouched');

  first.child.kill('SIGTERM');
  await once(first.child, 'exit');
  const third = await startServerProcess(env);
  assert.equal((await fetch(`${third.address}/healthz`)).status, 200, 'a restart takes the lock at once');

  third.child.kill('SIGKILL');
  await once(third.child, 'exit');
  const fourth = await startServerProcess(env);
  assert.equal((await fetch(`${fourth.address}/healthz`)).status, 200, 'kill -9 leaves no stale lock');
  fourth.child.kill('SIGTERM');
  await once(fourth.child, 'exit');
});
