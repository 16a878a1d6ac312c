import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { createDiskIoCollector, parseDiskstats } from './diskio.ts';
import { copyOfFixture, diskstatsText } from './fixtures/tree.ts';

const removals: Array<() => Promise<void>> = [];
after(() => Promise.all(removals.map((remove) => remove())));

async function modernCopy() {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  return copy;
}

type Row = Parameters<typeof diskstatsText>[0][number];
/** The modern fixture's diskstats, 15 s later: sda and nvme0n1 moved a little, every virtual device a lot. */
const laterRows: Row[] = [
  [7, 0, 'loop0', 20000 + 90000, 0],
  [8, 0, 'sda', 1000000 + 3000, 2000000 + 1500],
  [8, 1, 'sda1', 10000 + 1000, 500 + 500],
  [8, 2, 'sda2', 990000 + 2000, 1999500 + 1000],
  [9, 0, 'md0', 500000 + 90000, 600000 + 90000],
  [11, 0, 'sr0', 1000 + 90000, 0],
  [147, 0, 'drbd0', 60000 + 90000, 70000 + 90000],
  [252, 0, 'zram0', 40000 + 90000, 50000 + 90000],
  [253, 0, 'dm-0', 700000 + 90000, 800000 + 90000],
  [259, 0, 'nvme0n1', 3000000 + 6000, 4000000 + 4500],
  [259, 1, 'nvme0n1p1', 3000000 + 6000, 4000000 + 4500],
];
const later = diskstatsText(laterRows);
/** `later` with sda's counters replaced. */
const laterWithSda = (read: number, written: number) =>
  diskstatsText(laterRows.map((row): Row => (row[2] === 'sda' ? [8, 0, 'sda', read, written] : row)));

/** The collector on a monotonic clock the test sets: `read(ms)` reads at `ms` of it. */
function diskIoAt(root: string) {
  let now = 0;
  const collector = createDiskIoCollector(root, () => now);
  return {
    read: (ms: number) => {
      now = ms;
      return collector.read();
    },
  };
}

test('bytes per second over the physical disks only (sda and nvme0n1); the first reading is null', async () => {
  const copy = await modernCopy();
  const io = diskIoAt(copy.root);
  assert.equal(await io.read(1_000_000), null);
  await copy.write('/proc/diskstats', later);
  // Read: (3000 + 6000) sectors × 512 B / 15 s; written: (1500 + 4500) × 512 / 15. Partitions, md0,
  // dm-0, loop0, zram0, drbd0 (no device link) and sr0 would each add 90000 sectors.
  assert.deepEqual(await io.read(1_015_000), { readBps: 307200, writeBps: 204800 });
});

test('a disk whose counters went back is left out of that interval only', async () => {
  const copy = await modernCopy();
  const io = diskIoAt(copy.root);
  await io.read(0);
  await copy.write('/proc/diskstats', laterWithSda(80, 80));
  // Only nvme0n1: 6000 × 512 / 15 and 4500 × 512 / 15.
  assert.deepEqual(await io.read(15_000), { readBps: 204800, writeBps: 153600 });
  await copy.write('/proc/diskstats', laterWithSda(80 + 1500, 80 + 750));
  // sda from its reset: +1500 and +750 sectors over 15 s; nvme0n1 unchanged.
  assert.deepEqual(await io.read(30_000), { readBps: 51200, writeBps: 25600 });
});

test('a disk that appears between two readings starts counting at the next one', async () => {
  const copy = await modernCopy();
  const io = diskIoAt(copy.root);
  await copy.write('/proc/diskstats', diskstatsText([[8, 0, 'sda', 1000, 1000]]));
  await io.read(0);
  await copy.write(
    '/proc/diskstats',
    diskstatsText([
      [8, 0, 'sda', 1000 + 1500, 1000],
      [259, 0, 'nvme0n1', 9e9, 9e9],
    ]),
  );
  assert.deepEqual(await io.read(15_000), { readBps: 51200, writeBps: 0 });
});

test('without sysfs under the root no disk is known physical: null, not a false zero', async () => {
  const copy = await copyOfFixture('old-kernel');
  removals.push(copy.remove);
  await copy.write('/proc/diskstats', diskstatsText([[8, 0, 'sda', 1000, 1000]]));
  const io = diskIoAt(copy.root);
  assert.equal(await io.read(0), null);
  assert.equal(await io.read(15_000), null);
});

test('a missing diskstats gives null', async () => {
  const io = diskIoAt('/nonexistent-host-root');
  assert.equal(await io.read(0), null);
  assert.equal(await io.read(15_000), null);
});

test('diskstats lines: sectors are 512 bytes; short lines of old kernels are skipped', () => {
  const rows = parseDiskstats(
    '   8       0 sda 125000 12 1000000 3456 250000 78 2000000 9012 0 4567 12468\n   8    1 sda1 1250 10000 62 500\n',
  );
  assert.deepEqual([...rows], [['sda', { a: 512_000_000, b: 1_024_000_000 }]]);
});
