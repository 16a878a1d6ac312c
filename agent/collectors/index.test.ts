import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { sampleFrameSchema } from '../../protocol/agent.ts';
import { copyOfFixture, diskstatsText, netDevText, statfsTable } from './fixtures/tree.ts';
import { createHostSampler, readSafely } from './index.ts';

const removals: Array<() => Promise<void>> = [];
after(() => Promise.all(removals.map((remove) => remove())));

const GiB = 1024 ** 3;
const KB = 1024;

test('two samples of the modern host: every part, the second with rates over the monotonic clock, valid as a sample frame', async () => {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  const { statfs } = statfsTable(copy.root, {
    '/': { bsize: 4096, blocks: (100 * GiB) / 4096, bfree: (60 * GiB) / 4096, bavail: (55 * GiB) / 4096 },
  });
  const errors: unknown[] = [];
  let monotonic = 0;
  const sampler = createHostSampler({
    root: copy.root,
    statfs,
    onError: (_, error) => errors.push(error),
    monotonic: () => monotonic,
  });

  const first = await sampler.sample(10_000_000);
  assert.deepEqual([first.cpu, first.diskIo, first.net], [null, null, null]);

  await copy.write('/proc/stat', 'cpu  10600 520 3200 81000 1100 110 220 350 4500 110\n');
  await copy.write('/proc/diskstats', diskstatsText([[8, 0, 'sda', 1000000 + 7500, 2000000 + 3000]]));
  await copy.write('/proc/1/net/dev', netDevText([['eth0', 10000000 + 30000, 2000000 + 15000]]));
  await copy.write('/proc/loadavg', '1.25 0.75 0.50 3/470 12399\n');
  // 15 s later, though the wall clock was set back an hour meanwhile (NTP at boot): the rates are over
  // the 15 s, and the sample is stamped with the wall clock's time.
  monotonic += 15_000;
  const second = await sampler.sample(10_000_000 - 3_600_000);
  assert.deepEqual(second, {
    kind: 'sample',
    ts: 10_000_000 - 3_600_000,
    cpu: 42.5,
    memory: { used: (16303480 - 9876540) * KB, total: 16303480 * KB },
    swap: { used: (2097148 - 1835004) * KB, total: 2097148 * KB },
    // Only / has numbers in this test; the other filesystems' statfs fails and leaves them out.
    disks: [{ mount: '/', device: '/dev/sda2', fstype: 'ext4', used: 40 * GiB, size: 95 * GiB }],
    diskIo: { readBps: 256000, writeBps: 102400 },
    net: { rxBps: 2000, txBps: 1000 },
    load: [1.25, 0.75, 0.5],
    temperatures: [
      { sensor: 'acpitz temp1', celsius: 27.8 },
      { sensor: 'nvme Composite (hwmon1)', celsius: 38.85 },
      { sensor: 'nvme Sensor 1', celsius: 41.85 },
      { sensor: 'nvme temp3', celsius: 36.85 },
      { sensor: 'coretemp Package id 0', celsius: 54 },
      { sensor: 'coretemp Core 0', celsius: 51 },
      { sensor: 'coretemp Core 1', celsius: 57 },
      { sensor: 'nvme Composite (hwmon3)', celsius: 44.85 },
    ],
  });
  for (const sample of [first, second]) sampleFrameSchema.parse({ ...sample, containers: null, units: null });
  assert.deepEqual(errors, [], 'a missing file is not an error');
});

test('a root with nothing under it samples as nulls and empty lists, never an error', async () => {
  const errors: unknown[] = [];
  const sampler = createHostSampler({ root: '/nonexistent-host-root', onError: (_, e) => errors.push(e) });
  for (const ts of [0, 15_000]) {
    assert.deepEqual(await sampler.sample(ts), {
      kind: 'sample',
      ts,
      cpu: null,
      memory: null,
      swap: null,
      disks: [],
      diskIo: null,
      net: null,
      load: null,
      temperatures: [],
    });
  }
  assert.deepEqual(errors, []);
});

test('a collector that throws gives its fallback and is reported; the sample goes on', async () => {
  const reported: string[] = [];
  const onError = (collector: string, error: unknown) =>
    reported.push(`${collector}: ${(error as Error).message}`);
  const value = await readSafely('disks', () => Promise.reject(new Error('boom')), [], onError);
  assert.deepEqual(value, []);
  assert.deepEqual(await readSafely('cpu', async () => 12.5, null, onError), 12.5);
  assert.deepEqual(reported, ['disks: boom']);
});

test('a filesystem whose statfs never answers does not stop the samples: the other disks are still there', async () => {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  const numbers = { bsize: 4096, blocks: 100, bfree: 50, bavail: 40 };
  // A suspended ZFS pool at /media/windows: its statfs never returns.
  const statfs = (path: string) =>
    path.endsWith('/media/windows') ? new Promise<never>(() => {}) : Promise.resolve(numbers);
  const sampler = createHostSampler({ root: copy.root, statfs, statfsDeadlineMs: 100 });
  for (const ts of [0, 15_000, 30_000]) {
    const sample = await sampler.sample(ts);
    assert.equal(sample.disks.length, 6, 'the six other disks');
    assert.ok(!sample.disks.some((d) => d.mount === '/media/windows'));
    assert.deepEqual(sample.load, [0.52, 0.58, 0.59], 'the other collectors too');
  }
});
