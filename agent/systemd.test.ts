import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { unitSchema } from '../protocol/agent.ts';
import { FakeClock } from '../server/clock.ts';
import { tempDir } from '../server/testing.ts';
import { commandEnv } from './command.ts';
import { type FakeUnit, showOutput, startFakeSystemd, typicalUnits } from './fixtures/systemd-units.ts';
import { createUnitReader, parseShow, SHOW_ARGS, systemctlCommand, unitOf } from './systemd.ts';

// systemd does not run on the machines these tests run on: the fixture systemctl stands in for it
// (agent/fixtures/systemctl), printing what `systemctl show` prints for the units of its world.

const MiB = 2 ** 20;
/** What main.ts hands the unit reader: the environment without MON_*. */
const env = commandEnv(process.env);

function fakeOf(t: { after: (fn: () => void) => void }, units: FakeUnit[] = typicalUnits(200)) {
  const fake = startFakeSystemd(units);
  t.after(() => fake.close());
  return fake;
}

async function readAll(reader: ReturnType<typeof createUnitReader>, ts: number) {
  const units = await reader.read(ts);
  assert.ok(units, `no units read: ${reader.problem()}`);
  for (const unit of units) unitSchema.parse(unit); // what the server will accept
  return new Map(units.map((unit) => [unit.name, unit]));
}

test('one systemctl show lists every loaded service with state, sub-state, restarts and memory', async (t) => {
  const fake = fakeOf(t);
  const units = await readAll(createUnitReader({ systemctl: fake.systemctl, env }), Date.UTC(2026, 0, 1));
  assert.deepEqual(fake.calls(), [SHOW_ARGS.join(' ')]);
  assert.deepEqual(SHOW_ARGS, [
    'show',
    '--all',
    '--type=service',
    '--no-pager',
    '--property=Id,LoadState,ActiveState,SubState,NRestarts,CPUUsageNSec,MemoryCurrent',
    '*.service',
  ]);
  // 200 units of which two are referenced but have no unit file (not-found): skipped.
  assert.equal(units.size, 198);
  assert.equal(units.has('display-manager.service'), false);
  assert.deepEqual(units.get('nginx.service'), {
    name: 'nginx.service',
    state: 'active',
    subState: 'running',
    restarts: 0,
    cpu: null,
    memory: 14 * MiB,
  });
  assert.deepEqual(units.get('backup.service'), {
    name: 'backup.service',
    state: 'failed',
    subState: 'failed',
    restarts: 3,
    cpu: null,
    memory: null,
  });
  // A one-shot unit that exited keeps no cgroup: MemoryCurrent=[not set].
  assert.equal(units.get('ufw.service')?.memory, null);
  assert.deepEqual(
    [units.get('apt-daily.service')?.state, units.get('apt-daily.service')?.subState],
    ['inactive', 'dead'],
  );
});

test('systemctl runs with the environment it is given: without MON_*, so never with the host token', async (t) => {
  const fake = fakeOf(t);
  // The agent's own environment holds its token, as an agent started with MON_TOKEN does.
  process.env.MON_TOKEN = `bth_${'s'.repeat(30)}`;
  t.after(() => {
    delete process.env.MON_TOKEN;
  });
  await readAll(createUnitReader({ systemctl: fake.systemctl, env: commandEnv(process.env) }), 0);
  const names = fake.envNames();
  assert.deepEqual(
    names.filter((name) => name.startsWith('MON_')),
    [],
  );
  assert.ok(names.includes('PATH') && names.includes('SYSTEMD_PAGER') && names.includes('LC_ALL'));
});

test('CPU is percent of one CPU from CPUUsageNSec over the monotonic time between samples, whatever the wall clock does', async (t) => {
  // The monotonic clock; the samples' time stamps (the wall clock) step back and forth below.
  const clock = new FakeClock();
  const wall = [clock.now(), clock.now() - 3_600_000, clock.now() + 86_400_000, clock.now()];
  const fake = fakeOf(t);
  const reader = createUnitReader({ systemctl: fake.systemctl, env, monotonic: () => clock.now() });
  const unit = (name: string) => {
    const found = fake.units.find((u) => u.name === name);
    assert.ok(found);
    return found;
  };
  assert.equal((await readAll(reader, wall[0]!)).get('nginx.service')?.cpu, null, 'first sample');

  await clock.advance(15_000);
  unit('nginx.service').cpuNsec! += 1.5e9; // 1.5 s of CPU in 15 s
  unit('postgresql@16-main.service').cpuNsec! += 45e9; // three cores busy
  fake.write();
  // NTP set the clock back an hour meanwhile: 15 s passed all the same.
  const second = await readAll(reader, wall[1]!);
  assert.equal(second.get('nginx.service')?.cpu, 10);
  assert.equal(second.get('postgresql@16-main.service')?.cpu, 300);
  assert.equal(second.get('redis-server.service')?.cpu, 0);

  // nginx fails and systemd restarts it: a new cgroup, its counter from zero, one restart more.
  await clock.advance(15_000);
  Object.assign(unit('nginx.service'), { cpuNsec: 2e8, restarts: 1 });
  unit('redis-server.service').cpuNsec = null; // accounting turned off
  fake.write();
  const third = await readAll(reader, wall[2]!);
  assert.deepEqual([third.get('nginx.service')?.cpu, third.get('nginx.service')?.restarts], [null, 1]);
  assert.equal(third.get('redis-server.service')?.cpu, null);

  await clock.advance(15_000);
  unit('nginx.service').cpuNsec! += 7.5e8;
  fake.write();
  assert.equal((await readAll(reader, wall[3]!)).get('nginx.service')?.cpu, 5);
});

test('a unit that fails shows as failed with its restarts, and one that goes away is dropped', async (t) => {
  const fake = fakeOf(t);
  const reader = createUnitReader({ systemctl: fake.systemctl, env });
  await readAll(reader, 1_000_000);
  const worker = fake.units.find((u) => u.name === 'app-30.service');
  assert.ok(worker);
  Object.assign(worker, {
    active: 'activating',
    sub: 'auto-restart',
    restarts: 4,
    memory: null,
    cpuNsec: null,
  });
  fake.units = fake.units.filter((u) => u.name !== 'app-31.service');
  fake.write();
  const units = await readAll(reader, 1_015_000);
  assert.deepEqual(units.get('app-30.service'), {
    name: 'app-30.service',
    state: 'activating',
    subState: 'auto-restart',
    restarts: 4,
    cpu: null,
    memory: null,
  });
  assert.equal(units.has('app-31.service'), false);
  worker.active = 'failed';
  worker.sub = 'failed';
  fake.write();
  assert.equal((await readAll(reader, 1_030_000)).get('app-30.service')?.state, 'failed');
});

test('no systemd gives null and says why, never a throw', async (t) => {
  const fake = fakeOf(t);
  fake.notBooted(true);
  const reader = createUnitReader({ systemctl: fake.systemctl, env });
  assert.equal(await reader.read(0), null);
  assert.equal(
    reader.problem(),
    `no systemd units: ${fake.systemctl} exited 1: System has not been booted with systemd as init system (PID 1). Can't operate.`,
  );
  fake.notBooted(false);
  assert.equal((await reader.read(15_000))?.length, 198);
  assert.equal(reader.problem(), null);

  const missing = createUnitReader({ systemctl: join(tmpdir(), 'mon-no-such-dir', 'systemctl'), env });
  assert.equal(await missing.read(0), null);
  assert.match(missing.problem() ?? '', /^no systemd units: .*\/systemctl: not found$/);
});

/**
 * A host root as the Docker install's container sees it at /host: a shell, the libraries it links, and
 * a systemctl that answers from the file `show.out` with shell built-ins only.
 */
function hostRootWithSystemctl(units: FakeUnit[]) {
  const root = tempDir('mon-host-root-');
  const shell = realpathSync('/bin/sh');
  const libraries = execFileSync('ldd', [shell], { encoding: 'utf8' })
    .split('\n')
    .flatMap((line) => /(\/\S+) \(0x/.exec(line)?.[1] ?? []);
  for (const file of [shell, ...libraries]) {
    mkdirSync(join(root.dir, dirname(file)), { recursive: true });
    copyFileSync(realpathSync(file), join(root.dir, file));
  }
  mkdirSync(join(root.dir, 'bin'), { recursive: true });
  if (shell !== '/bin/sh') copyFileSync(shell, join(root.dir, 'bin/sh'));
  mkdirSync(join(root.dir, 'usr/bin'), { recursive: true });
  writeFileSync(
    join(root.dir, 'usr/bin/systemctl'),
    '#!/bin/sh\nprintf \'%s\\n\' "$*" > /calls\nwhile IFS= read -r line; do printf \'%s\\n\' "$line"; done < /show.out\n',
    { mode: 0o755 },
  );
  writeFileSync(join(root.dir, 'show.out'), showOutput(units));
  return root;
}

const canChroot = process.getuid?.() === 0 && existsSync('/usr/sbin/chroot') && existsSync('/usr/bin/ldd');
test("without systemctl of its own, an agent whose host root is mounted elsewhere runs the host's inside it with chroot", {
  skip: !canChroot && 'needs root and chroot',
}, async (t) => {
  const world = typicalUnits(20);
  const root = hostRootWithSystemctl(world);
  t.after(() => root.remove());
  // chroot where the Docker install's container has it.
  const env = { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' };
  const absent = join(tmpdir(), 'mon-no-such-dir', 'systemctl');
  assert.deepEqual(systemctlCommand(root.dir, absent, env), {
    command: 'chroot',
    args: [root.dir, '/usr/bin/systemctl', ...SHOW_ARGS],
  });
  const reader = createUnitReader({ systemctl: absent, hostRoot: root.dir, env });
  const units = await readAll(reader, 0);
  assert.deepEqual(
    [...units.keys()].sort(),
    world
      .filter((unit) => unit.load !== 'not-found')
      .map((unit) => unit.name)
      .sort(),
  );
  assert.equal(readFileSync(join(root.dir, 'calls'), 'utf8'), `${SHOW_ARGS.join(' ')}\n`);
  // Not for the root the agent runs in, nor one whose systemctl others may change, nor one without it.
  assert.deepEqual(systemctlCommand('/', absent, env), { problem: `${absent}: not found` });
  chmodSync(join(root.dir, 'usr/bin/systemctl'), 0o775);
  assert.equal(await reader.read(15_000), null);
  assert.equal(reader.problem(), `no systemd units: ${absent}: not found, here or as root's in ${root.dir}`);
  rmSync(join(root.dir, 'usr/bin/systemctl'));
  assert.ok('problem' in systemctlCommand(root.dir, absent, env));
});

// Where systemd runs, the real systemctl answers: this is for machines without it, like the ones tests run on.
const noSystemdHere = existsSync('/usr/bin/systemctl') && !existsSync('/run/systemd/system');
test('the real systemctl of a machine without systemd gives null', { skip: !noSystemdHere }, async () => {
  const reader = createUnitReader({ systemctl: '/usr/bin/systemctl', env });
  assert.equal(await reader.read(0), null);
  assert.match(reader.problem() ?? '', /not been booted with systemd|Failed to connect to bus/);
});

test('reading a block: unknown and newer states, counters not set, systemd without NRestarts', () => {
  const [first, second, third, fourth] = parseShow(
    [
      'MemoryCurrent=18446744073709551615',
      'CPUUsageNSec=',
      'Id=old.service',
      'LoadState=loaded',
      'ActiveState=maintenance',
      'SubState=dead',
      '',
      'NRestarts=2',
      'MemoryCurrent=4096',
      'CPUUsageNSec=10',
      'Id=mounts.service',
      'LoadState=loaded',
      'ActiveState=refreshing',
      'SubState=running',
      '',
      '',
      'Id=strange.service',
      'LoadState=loaded',
      'ActiveState=elsewhere',
      'SubState=running',
      '',
      'Id=masked.service',
      'LoadState=masked',
      'ActiveState=inactive',
      'SubState=dead',
    ].join('\n'),
  );
  assert.ok(first && second && third && fourth);
  assert.deepEqual(unitOf(first), {
    name: 'old.service',
    state: 'inactive',
    subState: 'dead',
    restarts: 0,
    memory: null,
    cpuNsec: null,
  });
  assert.deepEqual(unitOf(second), {
    name: 'mounts.service',
    state: 'reloading',
    subState: 'running',
    restarts: 2,
    memory: 4096,
    cpuNsec: 10,
  });
  assert.equal(unitOf(third), null);
  assert.equal(unitOf(fourth)?.state, 'inactive');
});
