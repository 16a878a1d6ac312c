/**
 * The host's mount table (`/proc/<pid>/mountinfo`) and which of its filesystems are on disks.
 *
 * A line: `36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue`,
 * that is mount id, parent id, major:minor, root (the directory of the filesystem mounted there),
 * mount point, options, optional fields up to `-`, then type, source and filesystem options. Paths
 * escape space, tab, newline and backslash as `\040`, `\011`, `\012`, `\134`.
 */

export type Mount = { device: string; root: string; mountPoint: string; fstype: string; source: string };

/** `\040` and friends back to their characters. */
const decodePath = (path: string) =>
  path.includes('\\')
    ? path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8)))
    : path;

export function parseMountinfo(text: string): Mount[] {
  const mounts: Mount[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    const separator = fields.indexOf('-', 6);
    if (separator === -1 || fields.length < separator + 3) continue;
    mounts.push({
      device: fields[2]!,
      root: decodePath(fields[3]!),
      mountPoint: decodePath(fields[4]!),
      fstype: fields[separator + 1]!,
      source: decodePath(fields[separator + 2]!),
    });
  }
  return mounts;
}

/**
 * Filesystems that are not on the host's disks, by type: network and cluster filesystems (another
 * machine's disk, and a hung server must never hold up a sample), memory, layered and read-only image
 * filesystems (a container's overlay repeats the disk below it; a squashfs or a CD is always full),
 * and the kernel's pseudo filesystems. `fuseblk` (ntfs-3g, exfat on a disk) is on a disk and counts;
 * every other FUSE type (`fuse`, `fuse.sshfs`, `fuse.rclone`, `fuse.lxcfs`, …) does not.
 */
const notOnDisk = new Set([
  // network and cluster
  'nfs',
  'nfs4',
  'cifs',
  'smb3',
  'smbfs',
  'sshfs',
  'glusterfs',
  'ceph',
  'cephfs',
  '9p',
  'afs',
  'ncpfs',
  'lustre',
  'gpfs',
  'beegfs',
  'davfs',
  'virtiofs',
  // memory
  'tmpfs',
  'ramfs',
  'devtmpfs',
  'rootfs',
  // layered and read-only images
  'overlay',
  'aufs',
  'squashfs',
  'erofs',
  'cramfs',
  'iso9660',
  'udf',
  // pseudo
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
  'selinuxfs',
  'rpc_pipefs',
  'nfsd',
  'usbfs',
  'devfs',
  'fuse',
]);

export const isOnDisk = (fstype: string) => !notOnDisk.has(fstype) && !fstype.startsWith('fuse.');

/**
 * Each disk-backed filesystem once. Mounts of one device (major:minor) are one filesystem: of those,
 * the one that mounts the filesystem's top (root `/`) is kept over bind mounts of a directory inside
 * it (`/data/www` bound to `/var/www` has root `/www`), and of several such the shortest mount point.
 * A filesystem mounted only by a directory of it (btrfs subvolumes: root `/@`, `/@home`) is kept once
 * at its shortest mount point.
 */
export function diskFilesystems(mounts: readonly Mount[]): Mount[] {
  const chosen = new Map<string, Mount>();
  for (const mount of mounts) {
    if (!isOnDisk(mount.fstype)) continue;
    const kept = chosen.get(mount.device);
    if (!kept || preferred(mount, kept)) chosen.set(mount.device, mount);
  }
  return [...chosen.values()];
}

function preferred(candidate: Mount, kept: Mount): boolean {
  const top = (m: Mount) => m.root === '/';
  if (top(candidate) !== top(kept)) return top(candidate);
  return candidate.mountPoint.length < kept.mountPoint.length;
}
