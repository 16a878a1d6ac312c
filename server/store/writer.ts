import type { DatabaseSync } from 'node:sqlite';
import { unavailable } from '../problem.ts';

/** A unit of work for the writer: runs synchronously inside the batch transaction. */
export type WriteFn<T> = (db: DatabaseSync) => T;

type Job = {
  fn: WriteFn<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  enqueuedAt: number;
};

export type WriterOptions = {
  /** Queued jobs beyond this answer 503 with Retry-After. */
  maxQueue?: number;
  /** Jobs committed in one transaction at most. */
  maxBatch?: number;
  /** Called once per committed transaction (feeds mon_writer_commits_total). */
  onCommit?: (jobs: number) => void;
  /** Called when a job is refused because the queue is full. */
  onQueueFull?: () => void;
};

/**
 * The single writer (DESIGN rule 1). Callers enqueue synchronous functions; the writer runs a batch
 * of them in one transaction, each inside its own savepoint so a failing job rolls back alone, then
 * commits and settles the callers. A settled promise means the write is committed.
 */
export class Writer {
  private readonly db: DatabaseSync;
  private readonly queue: Job[] = [];
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly onCommit: (jobs: number) => void;
  private readonly onQueueFull: () => void;
  private scheduled = false;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private lastCommitAt = Date.now();
  /** Why the last transaction failed to commit, until one commits again. */
  failure: string | null = null;

  constructor(db: DatabaseSync, options: WriterOptions = {}) {
    this.db = db;
    this.maxQueue = options.maxQueue ?? 50_000;
    this.maxBatch = options.maxBatch ?? 5_000;
    this.onCommit = options.onCommit ?? (() => {});
    this.onQueueFull = options.onQueueFull ?? (() => {});
  }

  /** Queues `fn`; resolves with its result once committed. Rejects with a 503 Problem when full. */
  run<T>(fn: WriteFn<T>): Promise<T> {
    if (this.closed) return Promise.reject(unavailable(5, 'the server is shutting down'));
    if (this.queue.length >= this.maxQueue) {
      this.onQueueFull();
      return Promise.reject(unavailable(1, 'the write queue is full'));
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject, enqueuedAt: Date.now() });
      this.schedule();
    });
  }

  /** Jobs waiting to be committed. */
  get depth(): number {
    return this.queue.length;
  }

  /** True when jobs have waited more than `ms` without a commit: the writer is stuck. */
  stalled(ms = 10_000): boolean {
    const oldest = this.queue[0];
    return oldest !== undefined && Date.now() - oldest.enqueuedAt > ms && Date.now() - this.lastCommitAt > ms;
  }

  /** Resolves once everything queued so far is committed. */
  flush(): Promise<void> {
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new jobs and commits the queued ones. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.commitBatch();
    });
  }

  private commitBatch(): void {
    const batch = this.queue.splice(0, this.maxBatch);
    if (batch.length === 0) {
      this.notifyIdle();
      return;
    }
    const outcomes: { ok: boolean; value: unknown }[] = [];
    try {
      this.db.exec('BEGIN IMMEDIATE');
      for (const job of batch) {
        this.db.exec('SAVEPOINT job');
        try {
          const value = job.fn(this.db);
          this.db.exec('RELEASE job');
          outcomes.push({ ok: true, value });
        } catch (error) {
          this.db.exec('ROLLBACK TO job');
          this.db.exec('RELEASE job');
          outcomes.push({ ok: false, value: error });
        }
      }
      this.db.exec('COMMIT');
    } catch (error) {
      // The transaction itself failed (disk full, I/O error, locked): nothing of this batch is stored.
      if (this.db.isTransaction) this.db.exec('ROLLBACK');
      this.failure = (error as Error).message;
      for (const job of batch) job.reject(error);
      this.afterBatch();
      return;
    }
    this.lastCommitAt = Date.now();
    this.failure = null;
    this.onCommit(batch.length);
    batch.forEach((job, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.value);
    });
    this.afterBatch();
  }

  private afterBatch(): void {
    if (this.queue.length > 0) this.schedule();
    else this.notifyIdle();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
