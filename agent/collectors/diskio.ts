import { join } from 'node:path';
import type { SampleFrame } from '../../protocol/agent.ts';
import { exists } from './files.ts';
import { type Counters, createCounterRates } from './rates.ts';

/**
 * Disk I/O: bytes read and written per second over the host's physical disks, from the sectors read
 * and written in `<root>/proc/diskstats` (always 512-byte units there, whatever the disk's own sector
 * size).
 *
 * Every byte that reaches a disk is counted once, at the disk: partitions (a part of their disk), RAID
 * arrays and device-mapper volumes (LVM, dm-crypt: their I/O reaches the disks below them), loop
 * devices (their I/O reaches the disk holding the file) are left out, and so are disks that are not
 * disks (zram and ram live in memory, nbd and rbd on another machine, sr is a CD drive). A device is
 * physical when:
 * - its name is none of `loop*`, `ram*`, `zram*`, `md*`, `dm-*`, `nbd*`, `rbd*`, `sr*`, `fd*`;
 * - `<root>/sys/block/<name>` exists (partitions are not there, only whole disks) with a `device` link
 *   (a driver's device: SCSI, SATA, NVMe, virtio, Xen; software block devices such as drbd, bcache or
 *   a RAID array under another name have none);
 * - and it has no `partition` file.
 * A host where none is physical (no sysfs under the root) has null disk I/O rather than a false zero.
 */

const virtualNames = /^(loop|ram|zram|md|dm-|nbd|rbd|sr|fd)/;

/** `now`: a monotonic clock in ms (rates.ts). */
export function createDiskIoCollector(root: string, now?: () => number) {
  // diskstats writes `cciss/c0d0` where sysfs has `cciss!c0d0`.
  const sysBlock = (name: string) => join(root, '/sys/block', name.replaceAll('/', '!'));
  const rates = createCounterRates(
    join(root, '/proc/diskstats'),
    parseDiskstats,
    async (name) =>
      !virtualNames.test(name) &&
      (await exists(join(sysBlock(name), 'device'))) &&
      !(await exists(join(sysBlock(name), 'partition'))),
    now,
  );
  return {
    async read(): Promise<SampleFrame['diskIo']> {
      const bytes = await rates();
      return bytes && { readBps: bytes.a, writeBps: bytes.b };
    },
  };
}

/**
 * Each device's bytes read and written. A line: `major minor name reads merged sectors-read ms writes
 * merged sectors-written ms …` (later kernels add discard and flush columns after these).
 */
export function parseDiskstats(text: string): Map<string, Counters> {
  const rows = new Map<string, Counters>();
  for (const line of text.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 10) continue;
    const read = Number(fields[5]);
    const written = Number(fields[9]);
    if (Number.isFinite(read) && Number.isFinite(written))
      rows.set(fields[2]!, { a: read * 512, b: written * 512 });
  }
  return rows;
}
