import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { DiskSample } from '../../protocol/agent.ts';
import { createDiskCollector, type StatfsNumbers } from './disks.ts';
import { fixtureRoot, scratchRoot, statfsTable } from './fixtures/tree.ts';
import { diskFilesystems, isOnDisk, parseMountinfo } from './mounts.ts';

const removals: Array<() => Promise<void>> = [];
after(() => Promise.all(removals.map((remove) => remove())));

const GiB = 1024 ** 3;
/** statfs numbers of a filesystem of 4 KiB blocks: `sizeGiB` in all, `usedGiB` used, `reservedGiB` for root. */
const fs4k = (sizeGiB: number, usedGiB: number, reservedGiB = 0): StatfsNumbers => {
  const blocks = (sizeGiB * GiB) / 4096;
  const bfree = blocks - (usedGiB * GiB) / 4096;
  return { bsize: 4096, blocks, bfree, bavail: bfree - (reservedGiB * GiB) / 4096 };
};

/** Every mount of the modern fixture has numbers: what is left out is left out by the rules, not by statfs. */
const modernNumbers: Record<string, StatfsNumbers> = {
  '/': fs4k(100, 40, 5),
  '/boot/efi': fs4k(1, 0.25),
  '/data': fs4k(1000, 900),
  '/var/www': fs4k(1000, 900),
  '/backup': fs4k(500, 100),
  '/var/lib/backup-mirror': fs4k(500, 100),
  '/srv/raid': fs4k(2000, 1000),
  '/media/usb disk': fs4k(64, 32),
  '/media/windows': fs4k(256, 128),
  '/sys': fs4k(1, 0),
  '/proc': fs4k(1, 0),
  '/dev': fs4k(8, 0),
  '/run': fs4k(2, 1),
  '/mnt/nfs': fs4k(4000, 3999),
  '/mnt/share': fs4k(4000, 3999),
  '/var/lib/docker/overlay2/4f1c2a9b7e3d/merged': fs4k(100, 40),
  '/snap/core22/1380': fs4k(1, 1),
  '/run/user/1000': fs4k(2, 0),
  '/home/ops/remote': fs4k(100, 99),
  '/mnt/ram': fs4k(1, 1),
};

const disk = (mount: string, device: string, fstype: string, n: StatfsNumbers): DiskSample => {
  const used = (n.blocks - n.bfree) * n.bsize;
  return { mount, device, fstype, used, size: used + n.bavail * n.bsize };
};

test('each disk-backed filesystem of the modern host once, with used and used + available', async () => {
  const root = fixtureRoot('modern');
  const { statfs, asked } = statfsTable(root, modernNumbers);
  const disks = await createDiskCollector({ root, statfs }).read();
  assert.deepEqual(disks, [
    disk('/', '/dev/sda2', 'ext4', modernNumbers['/']!),
    disk('/boot/efi', '/dev/sda1', 'vfat', modernNumbers['/boot/efi']!),
    // /data once: its bind mount /var/www (root /www) is the same filesystem.
    disk('/data', '/dev/nvme0n1p1', 'xfs', modernNumbers['/data']!),
    // The LVM volume mounted twice: the shorter mount point, though listed second.
    disk('/backup', '/dev/mapper/vg0-backup', 'ext4', modernNumbers['/backup']!),
    disk('/srv/raid', '/dev/md0', 'ext4', modernNumbers['/srv/raid']!),
    // `\040` in mountinfo is a space.
    disk('/media/usb disk', '/dev/sdb1', 'exfat', modernNumbers['/media/usb disk']!),
    // ntfs-3g through FUSE on a disk counts; sshfs through FUSE does not.
    disk('/media/windows', '/dev/sdc1', 'fuseblk', modernNumbers['/media/windows']!),
  ]);
  // Reserved blocks are not available: / holds 95 GiB for users, 40 of them used.
  assert.deepEqual([disks[0]!.used / GiB, disks[0]!.size / GiB], [40, 95]);
  // Network, memory, layered and pseudo filesystems are never asked (a hung NFS server cannot hold the sample).
  assert.deepEqual(asked.sort(), [
    '/',
    '/backup',
    '/boot/efi',
    '/data',
    '/media/usb disk',
    '/media/windows',
    '/srv/raid',
  ]);
});

test('network, memory, layered, image and pseudo filesystem types are not on disk', () => {
  for (const fstype of [
    'nfs',
    'nfs4',
    'cifs',
    'smb3',
    'sshfs',
    'fuse.sshfs',
    'glusterfs',
    'ceph',
    '9p',
    'tmpfs',
    'ramfs',
    'devtmpfs',
    'overlay',
    'squashfs',
    'proc',
    'sysfs',
    'cgroup',
    'cgroup2',
    'devpts',
    'mqueue',
    'debugfs',
    'tracefs',
    'securityfs',
    'pstore',
    'bpf',
    'autofs',
    'configfs',
    'fusectl',
    'hugetlbfs',
    'binfmt_misc',
    'nsfs',
    'efivarfs',
    'fuse',
    'fuse.lxcfs',
    'iso9660',
  ])
    assert.equal(isOnDisk(fstype), false, fstype);
  for (const fstype of ['ext4', 'xfs', 'btrfs', 'zfs', 'vfat', 'exfat', 'fuseblk', 'f2fs', 'ext3'])
    assert.equal(isOnDisk(fstype), true, fstype);
});

test('a bind mount listed before the filesystem it comes from still leaves the filesystem at its own mount', () => {
  const mounts = parseMountinfo(
    '30 22 259:1 /www /var/www rw,noatime shared:31 - xfs /dev/nvme0n1p1 rw\n' +
      '31 22 259:1 / /data rw,noatime shared:31 - xfs /dev/nvme0n1p1 rw\n',
  );
  assert.deepEqual(
    diskFilesystems(mounts).map((m) => m.mountPoint),
    ['/data'],
  );
});

test('a bind mount at a shorter path than the filesystem it comes from still leaves the filesystem at its own mount', () => {
  // /mnt/storage mounts the filesystem's top; /srv binds its directory /srv, at a shorter path.
  for (const order of [
    [
      '40 22 8:17 / /mnt/storage rw,relatime shared:40 - ext4 /dev/sdb1 rw',
      '41 22 8:17 /srv /srv rw,relatime shared:40 - ext4 /dev/sdb1 rw',
    ],
    [
      '41 22 8:17 /srv /srv rw,relatime shared:40 - ext4 /dev/sdb1 rw',
      '40 22 8:17 / /mnt/storage rw,relatime shared:40 - ext4 /dev/sdb1 rw',
    ],
  ]) {
    assert.deepEqual(
      diskFilesystems(parseMountinfo(`${order.join('\n')}\n`)).map((m) => [m.mountPoint, m.root]),
      [['/mnt/storage', '/']],
    );
  }
});

test('btrfs subvolumes (no mount of the top) are one filesystem at the shortest mount point', () => {
  const mounts = parseMountinfo(
    '26 1 0:24 /@ / rw,relatime shared:1 - btrfs /dev/nvme0n1p2 rw,ssd,space_cache=v2,subvolid=256,subvol=/@\n' +
      '27 26 0:24 /@home /home rw,relatime shared:2 - btrfs /dev/nvme0n1p2 rw,ssd,space_cache=v2,subvolid=257,subvol=/@home\n' +
      '28 26 0:24 /@log /var/log rw,relatime shared:3 - btrfs /dev/nvme0n1p2 rw,ssd,space_cache=v2,subvolid=258,subvol=/@log\n',
  );
  assert.deepEqual(
    diskFilesystems(mounts).map((m) => [m.mountPoint, m.source]),
    [['/', '/dev/nvme0n1p2']],
  );
});

test('mountinfo with several optional fields, tabs and backslashes in paths, and lines it cannot read', () => {
  const mounts = parseMountinfo(
    '40 22 8:3 / /srv/a\\011b\\134c rw shared:5 master:2 propagate_from:1 - ext4 /dev/sda3 rw\n' +
      'garbage line\n\n' +
      '41 22 8:4 / /x rw - ext4\n',
  );
  assert.deepEqual(mounts, [
    { device: '8:3', root: '/', mountPoint: '/srv/a\tb\\c', fstype: 'ext4', source: '/dev/sda3' },
  ]);
});

test('a filesystem whose statfs fails is left out; the others are still sampled', async () => {
  const root = fixtureRoot('modern');
  const { '/data': _gone, ...rest } = modernNumbers;
  const { statfs } = statfsTable(root, rest);
  const mounts = (await createDiskCollector({ root, statfs }).read()).map((d) => d.mount);
  assert.deepEqual(mounts, ['/', '/boot/efi', '/backup', '/srv/raid', '/media/usb disk', '/media/windows']);
});

test('statfs reads the mount point under the host root; the sample names it as the host does', async () => {
  // The real statfs on a scratch root: its /proc/1/mountinfo says the host's / is mounted, so statfs
  // reads the scratch directory itself, and the sample says "/".
  const scratch = await scratchRoot();
  removals.push(scratch.remove);
  await scratch.write('/proc/1/mountinfo', '22 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n');
  const [only, ...others] = await createDiskCollector({ root: scratch.root }).read();
  assert.deepEqual(others, []);
  assert.equal(only?.mount, '/');
  assert.equal(only?.device, '/dev/sda2');
  assert.ok(only.size > 0 && only.used >= 0 && only.used <= only.size);
});

test('no mount table under the root gives no disks, never an error', async () => {
  assert.deepEqual(await createDiskCollector({ root: fixtureRoot('old-kernel') }).read(), []);
});

test('a statfs that never answers leaves its filesystem out, is not asked again until it answers, and holds nothing up', async () => {
  const root = fixtureRoot('modern');
  const table = statfsTable(root, modernNumbers);
  let release: (numbers: StatfsNumbers) => void = () => {};
  const hung: string[] = [];
  // ntfs-3g's helper hung: statfs on /media/windows does not return.
  const statfs = (path: string) => {
    if (!path.endsWith('/media/windows')) return table.statfs(path);
    hung.push(path);
    return new Promise<StatfsNumbers>((resolve) => {
      release = resolve;
    });
  };
  const told: Array<[string, boolean]> = [];
  const collector = createDiskCollector({
    root,
    statfs,
    // Long enough that a read which waited for it is told apart from one that did not on a busy machine.
    deadlineMs: 1000,
    onStuck: (mount, stuck) => told.push([mount, stuck]),
  });
  const others = ['/', '/boot/efi', '/data', '/backup', '/srv/raid', '/media/usb disk'];
  const started = Date.now();
  assert.deepEqual(
    (await collector.read()).map((d) => d.mount),
    others,
  );
  assert.ok(Date.now() - started < 5000);
  assert.deepEqual(told, [['/media/windows', true]]);
  // The next samples do not wait on it, nor ask it again while the first call waits.
  for (let i = 0; i < 3; i++) {
    const again = Date.now();
    assert.deepEqual(
      (await collector.read()).map((d) => d.mount),
      others,
    );
    assert.ok(Date.now() - again < 500, 'no deadline waited for a filesystem known to be stuck');
  }
  assert.equal(hung.length, 1);
  // It answers at last: measured again from the next sample.
  release(modernNumbers['/media/windows']!);
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(told, [
    ['/media/windows', true],
    ['/media/windows', false],
  ]);
  setTimeout(() => release(modernNumbers['/media/windows']!), 10);
  assert.deepEqual((await collector.read()).at(-1)?.mount, '/media/windows');
  assert.equal(hung.length, 2);
});
