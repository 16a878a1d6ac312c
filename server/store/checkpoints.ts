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
export function startCheckpoints(
  file: string,
  on: {
    /** The thread ended by itself (it could not open the database): the writer checkpoints as usual. */
    stopped: (why: string) => void;
    /** Rounds began to fail (why), or work again (null). A failed round is retried the next. */
    failing?: (why: string | null) => void;
  },
): { stop(): Promise<void> } {
  const worker = new Worker(new URL('./checkpoint-worker.ts', import.meta.url), {
    workerData: { file, everyMs: EVERY_MS },
  });
  worker.on('message', (message: { failing?: string | null }) => {
    if (message && typeof message === 'object' && 'failing' in message) on.failing?.(message.failing ?? null);
  });
  let stopping = false;
  let error = 'it ended';
  worker.on('error', (thrown) => {
    error = String(thrown);
  });
  // Not `once(worker, 'exit')`, which rejects on the thread's error: a thread that failed has ended.
  const exited = new Promise<void>((resolve) =>
    worker.once('exit', () => {
      if (!stopping) on.stopped(error);
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
