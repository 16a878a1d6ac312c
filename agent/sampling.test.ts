import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SampleFrame } from '../protocol/agent.ts';
import { createAgentLog } from './log.ts';
import { createSampler, type SampleReaders } from './sampling.ts';

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
    'warn systemd does not answer: no units in the samples',
    'info the host metrics answered in time again',
  ]);
});
