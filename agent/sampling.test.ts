import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SampleFrame } from '../protocol/agent.ts';
import { tempDir } from '../server/testing.ts';
import { createContainerReader } from './docker.ts';
import { createAgentLog } from './log.ts';
import { createSampler, type SampleReaders } from './sampling.ts';
import { createUnitReader } from './systemd.ts';

type HostPart = Omit<SampleFrame, 'containers' | 'units'>;
const hostAt = (ts: number): HostPart => ({
  kind: 'sample',
  ts,
  cpu: 10,
  memory: { used: 1, total: 2 },
  swap: null,
  disks: [],
  diskIo: null,
  net: null,
  load: [1, 1, 1],
  temperatures: [],
});

test('a part that does not answer in time is left out of the sample, not asked again while its call waits, and logged once', async () => {
  let hostCalls = 0;
  let answerHost: (part: HostPart) => void = () => {};
  let hang = true;
  const readers: SampleReaders = {
    host: {
      sample: (ts) => {
        hostCalls++;
        if (!hang) return Promise.resolve(hostAt(ts));
        return new Promise((resolve) => {
          answerHost = resolve;
        });
      },
    },
    containers: { read: async () => [] },
    units: { read: async () => null },
  };
  const lines: string[] = [];
  const log = createAgentLog({ write: (line) => lines.push(line.slice(line.indexOf(' ') + 1).trim()) });
  // A deadline long enough that a sample which waited for it is told apart from one that did not on a
  // busy machine.
  const sample = createSampler(readers, log, { socketPath: '/run/test.sock', deadlineMs: 1000 });

  const started = Date.now();
  const first = await sample(1000);
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual([first.cpu, first.load, first.disks, first.containers], [null, null, [], []]);
  // The next samples go on without waiting, and do not start a second call beside the first.
  for (const ts of [2000, 3000]) {
    const quick = Date.now();
    assert.deepEqual((await sample(ts)).containers, []);
    assert.ok(Date.now() - quick < 500, 'no deadline waited for a part known to hang');
  }
  assert.equal(hostCalls, 1);
  // The call answers at last: the next sample asks again, and has the host's part.
  hang = false;
  answerHost(hostAt(1000));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual((await sample(4000)).cpu, 10);
  assert.equal(hostCalls, 2);
  assert.deepEqual(lines, [
    'warn the host metrics took longer than 1 s: left out of the samples until it answers in time',
    'warn systemd does not answer: left out of the samples',
    'info the host metrics answered in time again',
  ]);
});

test('a missing runtime or systemd is logged with its reason, once per reason, and its return once', async (t) => {
  const root = tempDir('mon-sampling-');
  t.after(root.remove);
  // A systemctl as on a host not booted with systemd: one line on stderr, exit 1.
  const systemctl = join(root.dir, 'systemctl');
  writeFileSync(
    systemctl,
    '#!/bin/sh\n[ -e "$(dirname "$0")/booted" ] && exit 0\necho "System has not been booted with systemd as init system (PID 1). Can\'t operate." >&2\necho "Failed to connect to bus: Host is down" >&2\nexit 1\n',
    { mode: 0o755 },
  );
  const socketPath = join(root.dir, 'docker.sock');
  const containers = createContainerReader({ socketPath, timeoutMs: 1000 });
  t.after(() => containers.close());
  const readers: SampleReaders = {
    host: { sample: async (ts) => hostAt(ts) },
    containers,
    units: createUnitReader({ systemctl, env: { PATH: process.env.PATH } }),
  };
  const lines: string[] = [];
  const log = createAgentLog({ write: (line) => lines.push(line.slice(line.indexOf(' ') + 1).trim()) });
  const sample = createSampler(readers, log, { socketPath });
  for (const ts of [1000, 2000, 3000]) {
    const frame = await sample(ts);
    assert.deepEqual([frame.containers, frame.units], [null, null]);
  }
  assert.deepEqual(lines, [
    `warn no container runtime at ${socketPath}: GET /version: connect ENOENT ${socketPath}: left out of the samples`,
    `warn no systemd units: ${systemctl} exited 1: System has not been booted with systemd as init system (PID 1). Can't operate.: left out of the samples`,
  ]);
  writeFileSync(join(root.dir, 'booted'), '');
  await sample(4000);
  await sample(5000);
  assert.deepEqual(lines.slice(2), ['info systemd answers: units are in the samples again']);
});
