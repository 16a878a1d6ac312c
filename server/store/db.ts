import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
} from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startCheckpoints, WRITER_CHECKPOINT_PAGES } from './checkpoints.ts';
import { type IngestOptions, IngestQueue } from './ingest.ts';
import { int, scalar } from './rows.ts';
import { Writer, type WriterOptions } from './writer.ts';

const migrationsDir = join(import.meta.dirname, 'migrations');

/**
 * The database: one connection owned by the writer for every write, one for reads.
 * Reads never wait for the writer (WAL lets them see the last commit).
 */
export type Store = {
  readonly read: DatabaseSync;
  readonly writer: Writer;
  /** True when a write transaction can be committed right now. */
  writable(): boolean;
  /**
   * Copies the whole WAL into the database and empties the WAL file (a TRUNCATE checkpoint), so that
   * no earlier version of a page stays in it (deleted visitor-id salts). Call it between writer jobs,
   * never inside one. False when it could not finish: a reader of another process, or a checkpoint
   * under way elsewhere (the checkpoint thread); the caller tries again later.
   */
  emptyWal(): boolean;
  /** A queue of inbound data in front of the writer, with honest acknowledgement (ingest.ts). */
  ingestQueue<Item>(options: Omit<IngestOptions<Item>, 'writer' | 'windowMs'>): IngestQueue<Item>;
  close(): Promise<void>;
};

export type StoreOptions = WriterOptions & {
  /** Checkpoints in a thread of their own (checkpoints.ts): the server's store; tests leave it off. */
  checkpointInBackground?: boolean;
  /**
   * Commits synced off the event loop (`walSync`): the server's store. Tests on a fake clock leave it
   * off, since a sync on libuv's thread pool does not finish within the clock's settling turns.
   */
  syncInBackground?: boolean;
  /** Group-commit window of the ingest queues (default 20 ms; tests on a fake clock use 0). */
  windowMs?: number;
  /** Trouble with the checkpoint thread, as a sentence for the log: it ended, its rounds fail, or work again. */
  onCheckpoints?: (what: string) => void;
  /** Called once at opening with the data directory and database files other users may read. */
  onLoosePermissions?: (files: { path: string; mode: string }[]) => void;
};

export function openStore(file: string, options: StoreOptions = {}): Store {
  createPrivately(file, options.onLoosePermissions);
  // No busy timeout: a lock held by another process would block the event loop for its whole length.
  // The writer retries on timers instead (writer.ts).
  const write = new DatabaseSync(file, { timeout: 0 });
  // Start-up may wait for a lock (nothing is served yet); afterwards the writer never does.
  write.exec('PRAGMA busy_timeout = 5000');
  write.exec('PRAGMA journal_mode = WAL');
  // FULL: a commit is on disk before the caller hears 2xx, even across a power cut.
  write.exec('PRAGMA synchronous = FULL');
  write.exec('PRAGMA foreign_keys = ON');
  migrate(write);
  write.exec('PRAGMA busy_timeout = 0');
  // The same guarantee as FULL, with the WAL's fsync on libuv's thread pool: commits only write, and
  // the writer settles its callers once walSync is done (writer.ts).
  if (options.syncInBackground) write.exec('PRAGMA synchronous = NORMAL');
  const read = new DatabaseSync(file, { timeout: 5000, readOnly: true });
  read.exec('PRAGMA foreign_keys = ON');
  // SQLite's lower() and LIKE fold ASCII letters only: analytics search matches "/über" with "Über".
  read.function('unicode_lower', { deterministic: true }, (value) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  const wal = options.syncInBackground ? walSync(file) : null;
  const writer = new Writer(write, { ...options, ...(wal ? { sync: wal.sync } : {}) });
  let closed = false;
  let checkpoints: { stop(): Promise<void> } | null = null;
  if (options.checkpointInBackground) {
    write.exec(`PRAGMA wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
    checkpoints = startCheckpoints(file, {
      stopped: (why) => {
        if (closed) return;
        write.exec('PRAGMA wal_autocheckpoint = 1000');
        options.onCheckpoints?.(
          `the checkpoint thread ended (${why}); commits checkpoint the WAL themselves`,
        );
      },
      failing: (why) =>
        options.onCheckpoints?.(why === null ? 'checkpoints work again' : `checkpoints fail: ${why}`),
    });
  }
  return {
    read,
    writer,
    emptyWal() {
      if (closed) return false;
      try {
        // busy = 1: readers still needed frames, and the WAL was not emptied.
        return write.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get()?.busy === 0;
      } catch {
        return false;
      }
    },
    ingestQueue: (queue) =>
      new IngestQueue({
        ...queue,
        writer,
        ...(options.windowMs === undefined ? {} : { windowMs: options.windowMs }),
      }),
    writable() {
      if (closed || !writer.canWrite()) return false;
      try {
        accessSync(file, constants.W_OK);
        accessSync(dirname(file), constants.W_OK);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      await writer.close();
      await checkpoints?.stop();
      closed = true;
      read.close();
      write.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      write.close();
      await wal?.close();
    },
  };
}

/**
 * Syncs the WAL, where a commit at `synchronous = NORMAL` wrote its pages without syncing them. An fsync
 * covers every write made to the file before it began, whichever descriptor made them. The WAL is only
 * ever reused after a checkpoint has copied all of it into the database and synced that (the
 * checkpointer's connection is FULL), so a sync of the WAL as it is now covers every commit before it.
 * The file exists once a commit wrote it; on first use its directory is synced too, so that the file
 * itself survives a power cut (SQLite's NORMAL syncs it only at the first checkpoint).
 */
function walSync(file: string): { sync(): Promise<void>; close(): Promise<void> } {
  let wal: Promise<FileHandle> | null = null;
  const openWal = async () => {
    const handle = await open(`${file}-wal`, 'r');
    try {
      const dir = await open(dirname(file), 'r');
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  };
  return {
    async sync() {
      // A WAL that could not be opened is tried again at the next sync.
      wal ??= openWal().catch((error: unknown) => {
        wal = null;
        throw error;
      });
      await (await wal).sync();
    },
    async close() {
      const opened = wal;
      wal = null;
      await (await opened?.catch(() => null))?.close();
    },
  };
}

/**
 * The database holds password hashes and notification secrets: mon creates its directory `0700` and
 * the file `0600` (SQLite gives the `-wal` and `-shm` files the database file's mode). Modes an
 * operator chose are left as they are; those that let other users in are reported.
 */
function createPrivately(file: string, onLoose: StoreOptions['onLoosePermissions']): void {
  const dir = dirname(file);
  const existing = [dir, file, `${file}-wal`, `${file}-shm`].filter((path) => existsSync(path));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  try {
    // An empty file is an empty database; made here so that it never exists with a wider mode.
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const loose = existing
    .map((path) => ({ path, mode: statSync(path).mode & 0o777 }))
    .filter(({ mode }) => (mode & 0o077) !== 0)
    .map(({ path, mode }) => ({ path, mode: mode.toString(8).padStart(4, '0') }));
  if (loose.length > 0) onLoose?.(loose);
}

/**
 * The migration files of a directory in order: `001-name.sql`, `002-name.sql`, … with no number missing
 * and none used twice. Any other `.sql` file there is refused; files that are not `.sql` are ignored.
 */
export function migrationFiles(dir: string = migrationsDir): string[] {
  const sql = readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort();
  const problems: string[] = [];
  const misnamed = sql.filter((f) => !/^\d{3}-[\w-]+\.sql$/.test(f) || f.startsWith('000'));
  if (misnamed.length > 0) problems.push(`not named NNN-name.sql from 001: ${misnamed.join(', ')}`);
  const files = sql.filter((f) => !misnamed.includes(f));
  const byNumber = Map.groupBy(files, (f) => Number(f.slice(0, 3)));
  let expected = 1;
  let previous: string | undefined;
  for (const [number, same] of byNumber) {
    if (number > expected) {
      const missing =
        number - 1 === expected
          ? `number ${pad(expected)}`
          : `numbers ${pad(expected)} to ${pad(number - 1)}`;
      const where = previous === undefined ? `before ${same[0]}` : `between ${previous} and ${same[0]}`;
      problems.push(`${missing} missing (${where})`);
    }
    if (same.length > 1) problems.push(`number ${pad(number)} used twice: ${same.join(', ')}`);
    expected = number + 1;
    previous = same.at(-1);
  }
  if (problems.length > 0) throw new Error(`migrations in ${dir} refused: ${problems.join('; ')}`);
  return files;
}

const pad = (n: number): string => String(n).padStart(3, '0');

/**
 * Applies numbered migrations (`NNN-name.sql`) above the database's user_version, each in a transaction.
 * Refuses to start, applying nothing, when the files are misnamed, duplicated or have a gap, or when
 * the database is at a version newer than the last file: a newer mon wrote it, and this one does not
 * know its schema.
 */
export function migrate(db: DatabaseSync, dir: string = migrationsDir): void {
  const files = migrationFiles(dir);
  const current = scalar(db, 'PRAGMA user_version', int);
  const known = files.length === 0 ? 0 : Number(files.at(-1)!.slice(0, 3));
  if (current > known) {
    throw new Error(
      `the database is at schema version ${current}, and this mon knows versions up to ${known}: ` +
        'a newer mon wrote it; run that version again, or restore a backup taken before the upgrade',
    );
  }
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (version <= current) continue;
    const sql = readFileSync(join(dir, file), 'utf8');
    db.exec('BEGIN');
    try {
      db.exec(sql);
      db.exec(`PRAGMA user_version = ${version}`);
      db.exec('COMMIT');
    } catch (error) {
      db.exec('ROLLBACK');
      throw new Error(`migration ${file} failed: ${(error as Error).message}`);
    }
  }
}
