import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { tempDir, within } from '../server/testing.ts';
import { commandEnv, firstLine, numberIn, OUTPUT_CAP, READ_CAP, runCommand } from './command.ts';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
const run = (command: string, timeoutMs = 5000, signal?: AbortSignal) =>
  runCommand({ command, timeoutMs, env, ...(signal ? { signal } : {}) });

test('exit code 0 is up: the message is the first non-empty line of stdout, the value its first number', async () => {
  const outcome = await run(`printf '\\n   \\n  load 0.53 0.60 0.71\\nsecond line 9\\n'; echo noise >&2`);
  assert.equal(outcome.status, 'up');
  assert.equal(outcome.detail, 'load 0.53 0.60 0.71');
  assert.equal(outcome.value, 0.53);
  assert.equal(typeof outcome.latencyMs, 'number');
});

test('any other exit code is down (1 too: no Nagios warning); stderr speaks when stdout is silent', async () => {
  const one = await run('echo "WARNING - 81% used"; exit 1');
  assert.deepEqual([one.status, one.detail, one.value], ['down', 'WARNING - 81% used', 81]);
  const two = await run('echo "disk full" >&2; exit 2');
  assert.deepEqual([two.status, two.detail, two.value], ['down', 'disk full', null]);
  const silent = await run('exit 3');
  assert.deepEqual([silent.status, silent.detail, silent.value], ['down', 'exit code 3', null]);
  const killed = await run('kill -9 $$');
  assert.deepEqual([killed.status, killed.detail], ['down', 'killed by SIGKILL']);
});

test('the value comes from stdout only: a number in an error on stderr is not a reading', async () => {
  const missing = await run('no-such-program-xyz');
  assert.equal(missing.status, 'down');
  assert.match(missing.detail, /no-such-program-xyz.*not found/);
  assert.equal(missing.value, null);
  const curl = await run('echo "curl: (7) Failed to connect to localhost port 9 after 0 ms" >&2; exit 7');
  assert.deepEqual(
    [curl.status, curl.detail, curl.value],
    ['down', 'curl: (7) Failed to connect to localhost port 9 after 0 ms', null],
  );
  // A number on stdout counts, down or up, whatever stderr says.
  const both = await run('echo "warning 5" >&2; echo "lag 12 s"; exit 1');
  assert.deepEqual([both.status, both.detail, both.value], ['down', 'lag 12 s', 12]);
});

test('colour codes are not read, and of a line rewritten after \\r the last text counts', async () => {
  const coloured = await run(`printf '\\033[1;32mOK\\033[0m 42 ms\\n'`);
  assert.deepEqual([coloured.detail, coloured.value], ['OK 42 ms', 42]);
  const progress = await run(`printf 'copied 10%%\\rcopied 55%%\\rcopied 100%%\\r\\n'`);
  assert.deepEqual([progress.detail, progress.value], ['copied 100%', 100]);
  assert.equal(firstLine('\x1b]0;title\x07\x1b(B\x1b[Kdone 3\r\n'), 'done 3');
  assert.equal(firstLine('\x1b[31m\x1b[0m\r   \nnext 1'), 'next 1');
  assert.equal(firstLine('50%\r \r'), '50%');
});

test('output past 1 MiB closes the stream: `yes` ends at once (SIGPIPE, as under head), costing the agent little', async () => {
  const cpu = process.cpuUsage();
  const started = Date.now();
  // Read for its whole timeout, it cost the agent 9 s of CPU.
  const outcome = await run('yes', 10_000);
  const elapsed = Date.now() - started;
  const used = process.cpuUsage(cpu);
  assert.equal(outcome.status, 'down');
  assert.equal(outcome.detail, 'y');
  assert.equal(outcome.value, null);
  assert.ok(elapsed < 5000, `took ${elapsed} ms`);
  assert.ok(used.user + used.system < 1_000_000, `used ${used.user + used.system} µs of CPU`);
  // Under 1 MiB a command ends as it would (the first 64 KiB kept); past it, its next write fails.
  // That write comes a second later: written at once, it could still reach the pipe before the agent
  // has read up to the cap and closed it.
  const page = (bytes: number) =>
    run(`head -c ${bytes} /dev/zero | tr '\\0' 'x'; echo; sleep 1; echo "after 5"; exit 0`);
  const fits = await page(READ_CAP - 100);
  assert.deepEqual([fits.status, fits.detail], ['up', 'x'.repeat(300)]);
  const over = await page(READ_CAP + OUTPUT_CAP);
  assert.deepEqual([over.status, over.detail], ['down', 'x'.repeat(300)]);
});

test('the message is at most 300 characters', async () => {
  const outcome = await run(`printf 'x%.0s' $(seq 1 500)`);
  assert.equal(outcome.detail, 'x'.repeat(300));
});

test('output past 64 KiB is not kept: a line after it does not count', async () => {
  // 64 KiB of blank lines, then a line that would be the message.
  const outcome = await run(`head -c ${OUTPUT_CAP} /dev/zero | tr '\\0' '\\n'; echo "late 7"; exit 4`);
  assert.deepEqual([outcome.status, outcome.detail, outcome.value], ['down', 'exit code 4', null]);
  const inTime = await run(`head -c ${OUTPUT_CAP - 100} /dev/zero | tr '\\0' '\\n'; echo "in time 7"`);
  assert.deepEqual([inTime.detail, inTime.value], ['in time 7', 7]);
});

test('at the timeout the whole process group is killed: down, "timed out after N s"', async () => {
  const { dir, remove } = tempDir('mon-command-');
  try {
    const pidFile = join(dir, 'pid');
    const started = Date.now();
    const outcome = await run(`sleep 30 & echo $! > ${pidFile}; sleep 30`, 400);
    assert.deepEqual(outcome, { status: 'down', latencyMs: null, detail: 'timed out after 0.4 s' });
    assert.ok(Date.now() - started < 5000);
    const child = Number(readFileSync(pidFile, 'utf8'));
    await within(2000, 'the background sleep killed with its group', () => !alive(child));
  } finally {
    remove();
  }
});

test('the exit code decides: a child left in the background with the output open does not hold the run', async () => {
  // Held by the child, the run would last its 20 s timeout: far from any delay of a busy machine.
  const started = Date.now();
  const outcome = await run('sleep 30 & echo ok 1', 20_000);
  assert.deepEqual([outcome.status, outcome.detail, outcome.value], ['up', 'ok 1', 1]);
  assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
  const down = await run('sleep 30 & echo "failed 3" >&2; exit 2', 20_000);
  assert.deepEqual([down.status, down.detail, down.value], ['down', 'failed 3', null]);
});

test('a child that left the process group (setsid) neither holds the run nor outlives the timeout of it', async () => {
  const { dir, remove } = tempDir('mon-command-');
  const pids: number[] = [];
  try {
    const pidFile = (name: string) => join(dir, name);
    // The shell exits at once: up, though the setsid child keeps the output open for 30 s (held, the
    // run would last its 20 s timeout).
    const started = Date.now();
    const quick = await run(`setsid sleep 30 & echo $! > ${pidFile('a')}; echo ok 2`, 20_000);
    assert.deepEqual([quick.status, quick.detail, quick.value], ['up', 'ok 2', 2]);
    assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
    pids.push(Number(readFileSync(pidFile('a'), 'utf8')));
    // The shell is still running at the timeout: the group is killed, the setsid child is not, and the
    // run ends at the timeout all the same.
    const slow = Date.now();
    const timedOut = await run(`setsid sleep 30 & echo $! > ${pidFile('b')}; sleep 30`, 2000);
    assert.deepEqual(timedOut, { status: 'down', latencyMs: null, detail: 'timed out after 2 s' });
    assert.ok(Date.now() - slow < 10_000, `took ${Date.now() - slow} ms: held by the setsid child`);
    pids.push(Number(readFileSync(pidFile('b'), 'utf8')));
  } finally {
    for (const pid of pids) if (pid > 0 && alive(pid)) process.kill(pid, 'SIGKILL');
    remove();
  }
});

test('a run stopped by the agent kills the command; a timeout of whole seconds reads "after 1 s"', async () => {
  const controller = new AbortController();
  const outcome = runCommand({ command: 'sleep 30', timeoutMs: 10_000, env, signal: controller.signal });
  controller.abort();
  assert.equal((await outcome).detail, 'stopped before it finished');
  const short = await runCommand({ command: 'sleep 30', timeoutMs: 1000, env });
  assert.equal(short.detail, 'timed out after 1 s');
});

test('commands run without the agent token or settings in their environment', async () => {
  const outcome = await runCommand({
    // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansions
    command: 'echo "token=${MON_TOKEN:-none} server=${MON_SERVER:-none} path=${PATH:+set}"',
    timeoutMs: 5000,
    env: commandEnv({ ...env, MON_TOKEN: 'bth_secret', MON_SERVER: 'https://mon.example.com' }),
  });
  assert.equal(outcome.detail, 'token=none server=none path=set');
});

test('the first number that does not stand inside a word', () => {
  assert.equal(numberIn('load 0.53'), 0.53);
  assert.equal(numberIn('sda1 80%'), 80);
  assert.equal(numberIn('disk-2 is 91% full'), 91);
  assert.equal(numberIn('temp=45.2C'), 45.2);
  assert.equal(numberIn('-5 degrees'), -5);
  assert.equal(numberIn('delta: -0.25'), -0.25);
  assert.equal(numberIn('12ms'), 12);
  assert.equal(numberIn('version v1.2.3'), null);
  assert.equal(numberIn('all good'), null);
  // Digits grouped in threes are one number; an exponent is part of it.
  assert.equal(numberIn('rows 1,234,567'), 1234567);
  assert.equal(numberIn('size 1_000'), 1000);
  assert.equal(numberIn('took 1,234.5 ms'), 1234.5);
  assert.equal(numberIn('count 1e3'), 1000);
  assert.equal(numberIn('rate 2.5E-4/s'), 0.00025);
  assert.equal(numberIn('-1,000 delta'), -1000);
  // Not grouped in threes: the digits before the separator, as a list reads.
  assert.equal(numberIn('load 0.5,1.2,3'), 0.5);
  assert.equal(numberIn('pair 12,34'), 12);
  assert.equal(numberIn('odd 1,234,5678'), 1);
  assert.equal(numberIn('mixed 1,000_000'), 1);
  assert.equal(numberIn('3e'), 3);
  assert.equal(numberIn('big 1e400'), null);
  assert.equal(firstLine('\r\n  \r\n a b \r\nc'), 'a b');
  assert.equal(firstLine(' \n\t\n'), null);
});

/** Whether a process runs (a zombie waiting for its parent counts as gone). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
