import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

/** The lock file in the data directory: an empty SQLite database that only the running mon holds. */
export const LOCK_FILE = 'mon.lock';

/** The data directory is held by another running process. */
export class DataDirLocked extends Error {}

/**
 * Holds the data directory for the life of the process: mon is its only writer (DESIGN rule 1), and
 * a second server on the same directory would run every check and send every notification again.
 * The lock is SQLite's own on a file of its own, taken exclusively and never released: it is an
 * fcntl lock, which the kernel drops when the process ends however it ends (kill -9 too), so no
 * stale lock is ever left to clean up. SQLite makes connections of one process conflict as well;
 * in-process tests that reopen a directory never take it (only main.ts does).
 */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const file = join(dataDir, LOCK_FILE);
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  // No busy timeout: a lock held elsewhere is an answer, not something to wait for.
  const db = new DatabaseSync(file, { timeout: 0 });
  try {
    db.exec('PRAGMA locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (error) {
    db.close();
    if ((((error as { errcode?: number }).errcode ?? 0) & 0xff) === 5) {
      throw new DataDirLocked(`another mon is running on the data directory ${dataDir}`);
    }
    throw error;
  }
  return {
    release() {
      if (!db.isOpen) return;
      db.exec('ROLLBACK');
      db.close();
    },
  };
}
