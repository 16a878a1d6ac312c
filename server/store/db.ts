import { accessSync, constants, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
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
  close(): Promise<void>;
};

export type StoreOptions = WriterOptions;

export function openStore(file: string, options: StoreOptions = {}): Store {
  mkdirSync(dirname(file), { recursive: true });
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
  const read = new DatabaseSync(file, { timeout: 5000, readOnly: true });
  read.exec('PRAGMA foreign_keys = ON');
  const writer = new Writer(write, options);
  let closed = false;
  return {
    read,
    writer,
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
      closed = true;
      read.close();
      write.exec('PRAGMA wal_checkpoint(TRUNCATE)');
      write.close();
    },
  };
}

/** Applies numbered migrations (`NNN-name.sql`) above the database's user_version, each in a transaction. */
export function migrate(db: DatabaseSync): void {
  const current = Number((db.prepare('PRAGMA user_version').get() as { user_version: number }).user_version);
  const files = readdirSync(migrationsDir)
    .filter((f) => /^\d{3}-[\w-]+\.sql$/.test(f))
    .sort();
  for (const file of files) {
    const version = Number(file.slice(0, 3));
    if (version <= current) continue;
    const sql = readFileSync(join(migrationsDir, file), 'utf8');
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
