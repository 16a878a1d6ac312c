import { join } from 'node:path';
import type { DiskSample } from '../../protocol/agent.ts';
import { statfs as fsStatfs } from '../fs.ts';
import { readText } from './files.ts';
import { diskFilesystems, parseMountinfo } from './mounts.ts';

/**
 * Disk usage: each disk-backed filesystem of the host once (mounts.ts says which), from the mount
 * table of the host's first process, `<root>/proc/1/mountinfo`: the host's mount namespace, not the
 * agent's own (in a container the agent's table lists the container's mounts).
 *
 * Usage comes from statfs on the mount point under the root: used = (blocks − free blocks) × block
 * size, size = used + blocks available to users × block size (blocks reserved for root left out, as
 * `df` does). A filesystem whose statfs fails (no permission, a stale mount) is left out of the sample.
 *
 * statfs may never answer (a FUSE helper that hangs, a suspended ZFS pool): each call has a deadline,
 * and a filesystem that misses it is left out of that sample and not asked again until its call
 * answers. Otherwise each sample would leave one more call waiting on it, each holding one of libuv's
 * four threads, which the spool's writes need too.
 *
 * statfs is an option so that tests can give each fixture mount its numbers: a fixture tree has no
 * filesystems of its own to measure. The mount table parsing and the filtering are what the fixtures
 * test.
 */

export type StatfsNumbers = { bsize: number; blocks: number; bfree: number; bavail: number };
export type Statfs = (path: string) => Promise<StatfsNumbers>;

/** The most filesystems a sample carries (the protocol's limit). */
const MAX_DISKS = 256;

/** How long statfs may take before its filesystem is left out of the sample. */
export const STATFS_DEADLINE_MS = 2000;

export function createDiskCollector(options: {
  root: string;
  statfs?: Statfs;
  deadlineMs?: number;
  /** Told when a filesystem's statfs misses the deadline (true) and when that call answers at last (false). */
  onStuck?: (mountPoint: string, stuck: boolean) => void;
}) {
  const { root } = options;
  const statfs: Statfs = options.statfs ?? fsStatfs;
  const deadlineMs = options.deadlineMs ?? STATFS_DEADLINE_MS;
  const mountinfo = join(root, '/proc/1/mountinfo');
  /** Mount points whose statfs missed its deadline and has not answered since. */
  const stuck = new Set<string>();

  /** statfs of the mount point, or null when it is stuck or misses the deadline (it throws as statfs does). */
  async function measure(mountPoint: string): Promise<StatfsNumbers | null> {
    if (stuck.has(mountPoint)) return null;
    const call = statfs(join(root, mountPoint));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<null>((resolve) => {
      timer = setTimeout(resolve, deadlineMs, null);
    });
    try {
      const numbers = await Promise.race([call, late]);
      if (numbers !== null) return numbers;
      stuck.add(mountPoint);
      options.onStuck?.(mountPoint, true);
      const answered = () => {
        stuck.delete(mountPoint);
        options.onStuck?.(mountPoint, false);
      };
      call.then(answered, answered);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  async function usage(mount: {
    mountPoint: string;
    source: string;
    fstype: string;
  }): Promise<DiskSample | null> {
    try {
      const s = await measure(mount.mountPoint);
      if (s === null || !(s.blocks > 0)) return null;
      const used = Math.max(s.blocks - s.bfree, 0) * s.bsize;
      return {
        mount: mount.mountPoint,
        device: mount.source.slice(0, 4096),
        fstype: mount.fstype.slice(0, 64),
        used,
        size: used + Math.max(s.bavail, 0) * s.bsize,
      };
    } catch {
      return null;
    }
  }

  return {
    async read(): Promise<DiskSample[]> {
      const text = await readText(mountinfo);
      if (text === null) return [];
      const filesystems = diskFilesystems(parseMountinfo(text)).slice(0, MAX_DISKS);
      const disks = await Promise.all(filesystems.map(usage));
      return disks.filter((disk) => disk !== null);
    },
  };
}
