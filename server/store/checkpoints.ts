import { Worker } from 'node:worker_threads';

/** How often the background thread copies the WAL back into the database. */
const EVERY_MS = 200;
/**
 * WAL pages after which the writer checkpoints by itself after all (SQLite's default is 1,000): a
 * backstop should the background thread fall behind, 64 MB of WAL at 4 KB pages.
 */
export const WRITER_CHECKPOINT_PAGES = 16_384;

/**
 * Checkpoints in a thread of their own. In WAL mode SQLite's writer copies the WAL back into the
 * database itself once the WAL passes 1,000 pages, inside a commit: random writes and a sync of the
 * database file on the event loop, about 45% of the time of committing tracker events in
 * batches of 2,000 (docs/operating.md, "Storage"). Here a second connection does it, every 200 ms.
 */
export function startCheckpoints(file: string, onStopped: () => void): { stop(): Promise<void> } {
  const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
    workerData: { file, everyMs: EVERY_MS },
  });
  // A round that failed is retried the next; the writer's own backstop stays.
  worker.on('message', () => {});
  // Should the thread end by itself (it could not open the database), the writer checkpoints as usual.
  let stopping = false;
  worker.on('error', () => {});
  // Not `once(worker, 'exit')`, which rejects on the thread's error: a thread that failed has ended.
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) onStopped();
      resolve();
    }),
  );
  worker.unref();
  return {
    stop() {
      if (!stopping) {
        stopping = true;
        // Held open until the thread has closed its connection, even as the process winds down.
        worker.ref();
        worker.postMessage('stop');
      }
      return exited;
    },
  };
}
