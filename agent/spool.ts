import { join } from 'node:path';
import {
  chmod,
  close,
  fsync,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  stat,
  unlink,
  writeFile,
} from './fs.ts';

/**
 * Request bodies waiting to be sent, as files in `<MON_STATE_DIR>/spool/` (each file is one body of
 * `POST /agent/v1/frames`: gzipped JSON, sent as it is). Every batch goes through here, so a batch is on
 * disk before it is sent and survives a restart or a crash; it is deleted only once the server answered
 * 200. Sent oldest first. Bounded in bytes and files: when full, the oldest go first, counted and
 * logged.
 *
 * Measured (agent/spool.test.ts): a sample with 50 containers and 200 units is about 9 KB gzipped in
 * its own file, so a one-hour outage (240 samples) takes about 2.2 MB, well inside the 64 MiB default.
 * Files are written whole and renamed into place, 0600 in a 0700 directory: they hold the host's data.
 */
export type Spool = {
  /** Adds a body as the newest file, first dropping the oldest files if it would not fit. */
  add(body: Buffer): Promise<void>;
  /** The oldest file, or null when the spool is empty. */
  oldest(): Promise<{ name: string; body: Buffer } | null>;
  /** The file after the named one (the next oldest), or null when there is none. */
  after(name: string): Promise<{ name: string; body: Buffer } | null>;
  /** Deletes a file once the server has it (or refused it as bad). */
  remove(name: string): Promise<void>;
  /**
   * Moves a file the server keeps failing on to `rejected/` (kept for a look, not sent again), which
   * holds at most REJECTED_MAX_FILES and REJECTED_MAX_BYTES: the oldest there go first.
   */
  setAside(name: string): Promise<void>;
  /** What it holds now. */
  size(): { files: number; bytes: number };
  /** Files dropped because the spool was full, since it was opened. */
  dropped(): number;
};

export const SPOOL_MAX_BYTES = 64 * 1024 * 1024;
export const SPOOL_MAX_FILES = 20_000;
export const REJECTED_DIR = 'rejected';
export const REJECTED_MAX_FILES = 100;
export const REJECTED_MAX_BYTES = 16 * 1024 * 1024;

/** `<15-digit ms>-<6-digit sequence>.json.gz`: names sort in the order the files were added. */
const namePattern = /^\d{15}-\d{6}\.json\.gz$/;
const TEMP_PREFIX = 'tmp-';

export async function openSpool(
  dir: string,
  options: {
    maxBytes?: number;
    maxFiles?: number;
    now?: () => number;
    /** Told when the oldest files are dropped to make room (with the total dropped so far). */
    onDrop?: (count: number, total: number) => void;
    /** Makes a directory's entries durable (tests watch it); fsync of the directory by default. */
    syncDir?: (dir: string) => Promise<void>;
  } = {},
): Promise<Spool> {
  const maxBytes = options.maxBytes ?? SPOOL_MAX_BYTES;
  const maxFiles = options.maxFiles ?? SPOOL_MAX_FILES;
  const now = options.now ?? Date.now;
  const syncDir = options.syncDir ?? syncDirectory;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);

  // The files, oldest first, with their sizes; read once, then kept in step with every change.
  const files: { name: string; bytes: number }[] = [];
  let bytes = 0;
  for (const name of (await readdir(dir)).sort()) {
    if (name.startsWith(TEMP_PREFIX)) {
      // A write cut short by a crash: never renamed into place, so never a whole body.
      await removeFile(join(dir, name));
      continue;
    }
    if (!namePattern.test(name)) continue;
    const size = (await stat(join(dir, name))).size;
    files.push({ name, bytes: size });
    bytes += size;
  }
  // Names stay in order across restarts and a clock set back: never below the newest name's time.
  const newest = files.at(-1)?.name;
  let lastTs = newest ? Number(newest.slice(0, 15)) : 0;
  let sequence = newest ? Number(newest.slice(16, 22)) + 1 : 0;
  let droppedTotal = 0;
  // The newest body stays in memory: mostly it is the one sent next, and need not be read back.
  let lastBody: { name: string; body: Buffer } | null = null;

  const removeOldest = async (): Promise<void> => {
    const file = files.shift();
    if (!file) return;
    bytes -= file.bytes;
    if (lastBody?.name === file.name) lastBody = null;
    await removeFile(join(dir, file.name));
  };

  return {
    async add(body) {
      let dropping = 0;
      while (files.length > 0 && (files.length + 1 > maxFiles || bytes + body.length > maxBytes)) {
        await removeOldest();
        dropping++;
      }
      if (dropping > 0) {
        droppedTotal += dropping;
        options.onDrop?.(dropping, droppedTotal);
      }
      const ts = Math.max(now(), lastTs);
      if (ts !== lastTs) sequence = 0;
      lastTs = ts;
      const name = `${String(ts).padStart(15, '0')}-${String(sequence++).padStart(6, '0')}.json.gz`;
      const temp = join(dir, `${TEMP_PREFIX}${name}`);
      try {
        const fd = await open(temp, 'w', 0o600);
        try {
          await writeFile(fd, body);
          // On disk before it takes its name: a power cut leaves the whole body or no file.
          await fsync(fd);
        } finally {
          await close(fd);
        }
        await rename(temp, join(dir, name));
      } catch (error) {
        // A disk full mid-write: no half body left behind to fill it further.
        await removeFile(temp).catch(() => {});
        throw error;
      }
      // The new name on disk too: without it a power cut can lose the file the rename made.
      await syncDir(dir);
      lastBody = { name, body };
      files.push({ name, bytes: body.length });
      bytes += body.length;
    },
    async oldest() {
      while (files.length > 0) {
        const { name } = files[0]!;
        if (lastBody?.name === name) return lastBody;
        try {
          return { name, body: await readFile(join(dir, name)) };
        } catch {
          // Gone or unreadable (removed by hand): skip it.
          await removeOldest();
        }
      }
      return null;
    },
    async after(name) {
      for (let index = files.findIndex((file) => file.name === name) + 1; index > 0; ) {
        const file = files[index];
        if (!file) return null;
        if (lastBody?.name === file.name) return lastBody;
        try {
          return { name: file.name, body: await readFile(join(dir, file.name)) };
        } catch {
          // Gone or unreadable (removed by hand): skip it; the next takes its index.
          bytes -= file.bytes;
          files.splice(index, 1);
        }
      }
      return null;
    },
    async remove(name) {
      const index = files.findIndex((file) => file.name === name);
      if (index < 0) return;
      bytes -= files[index]!.bytes;
      files.splice(index, 1);
      if (lastBody?.name === name) lastBody = null;
      await removeFile(join(dir, name));
    },
    async setAside(name) {
      const index = files.findIndex((file) => file.name === name);
      if (index < 0) return;
      bytes -= files[index]!.bytes;
      files.splice(index, 1);
      if (lastBody?.name === name) lastBody = null;
      const rejected = join(dir, REJECTED_DIR);
      await mkdir(rejected, { recursive: true, mode: 0o700 });
      await rename(join(dir, name), join(rejected, name));
      const kept = [];
      for (const file of (await readdir(rejected)).filter((n) => namePattern.test(n)).sort()) {
        kept.push({ file, bytes: (await stat(join(rejected, file))).size });
      }
      let total = kept.reduce((sum, k) => sum + k.bytes, 0);
      while (kept.length > 1 && (kept.length > REJECTED_MAX_FILES || total > REJECTED_MAX_BYTES)) {
        const oldest = kept.shift()!;
        total -= oldest.bytes;
        await removeFile(join(rejected, oldest.file));
      }
      await syncDir(rejected);
      await syncDir(dir);
    },
    size: () => ({ files: files.length, bytes }),
    dropped: () => droppedTotal,
  };
}

/** Deletes a file; one already gone is no error. */
async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** fsync of a directory: its entries (a rename, a new name) survive a power cut. */
export async function syncDirectory(dir: string): Promise<void> {
  const fd = await open(dir, 'r');
  try {
    await fsync(fd);
  } finally {
    await close(fd);
  }
}
