import { DatabaseSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';

/**
 * The background checkpointer's thread (checkpoints.ts): copies the WAL back into the database with a
 * connection of its own. PASSIVE takes no lock that the writer or a reader waits for: what a reader
 * still needs stays in the WAL until the next round.
 */
const { file, everyMs } = workerData as { file: string; everyMs: number };
const db = new DatabaseSync(file, { timeout: 0 });
// A checkpoint syncs the database file before the WAL may be reused: FULL, as the writer's.
db.exec('PRAGMA synchronous = FULL');
const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)');

// Only changes are told: the first round that fails, and the first that works again.
let failing = false;
const timer = setInterval(() => {
  try {
    checkpoint.get();
    if (failing) parentPort?.postMessage({ failing: null });
    failing = false;
  } catch (error) {
    // The writer is checkpointing itself (its backstop), or the disk fails.
    if (!failing) parentPort?.postMessage({ failing: String(error) });
    failing = true;
  }
}, everyMs);

parentPort?.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  parentPort?.postMessage('stopped');
  parentPort?.close();
});
