import type { DatabaseSync } from 'node:sqlite';
import type { LiveKey } from '../../protocol/live.ts';
import { unavailable } from '../problem.ts';
import { isStorageError } from './errors.ts';

/**
 * What a writer job sees besides the connection. Effects outside the database wait for the commit:
 * `afterCommit` runs once the transaction is on disk, `onRollback` undoes in-memory changes when the
 * job or its transaction rolls back, and `invalidate` names live-update keys published after commit.
 */
export type Tx = {
  readonly db: DatabaseSync;
  afterCommit(fn: () => void): void;
  onRollback(fn: () => void): void;
  invalidate(...keys: LiveKey[]): void;
};

/** A writer job returns its value synchronously; an async job is a compile error (and refused at run time). */
export type Sync<T> =
  T extends PromiseLike<unknown>
    ? 'a writer job must be synchronous: do the async work before writer.run()'
    : T;

/** A unit of work for the writer: runs synchronously inside the batch transaction. */
export type WriteFn<T> = (db: DatabaseSync, tx: Tx) => Sync<T>;

type Job = {
  fn: (db: DatabaseSync, tx: Tx) => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  enqueuedAt: number;
};

/**
 * A job that ran in the open transaction, with what waits for the commit; it is also the job's `tx`.
 * One object per job, lists made only when used: the writer runs hundreds of thousands of jobs a second.
 */
class Ran implements Tx {
  readonly db: DatabaseSync;
  readonly job: Job;
  ok = true;
  value: unknown;
  after: (() => void)[] | null = null;
  undo: (() => void)[] | null = null;
  keys: LiveKey[] | null = null;

  constructor(db: DatabaseSync, job: Job) {
    this.db = db;
    this.job = job;
  }

  afterCommit(fn: () => void): void {
    this.after ??= [];
    this.after.push(fn);
  }

  onRollback(fn: () => void): void {
    this.undo ??= [];
    this.undo.push(fn);
  }

  invalidate(...keys: LiveKey[]): void {
    this.keys ??= [];
    this.keys.push(...keys);
  }

  /** Undoes the job's in-memory changes, newest first, and forgets what waited for the commit. */
  rollBack(): void {
    const fns = this.undo ?? [];
    for (let i = fns.length - 1; i >= 0; i--) fns[i]!();
    this.after = null;
    this.undo = null;
    this.keys = null;
  }
}

export type WriterOptions = {
  /** Queued jobs beyond this answer 503 with Retry-After. */
  maxQueue?: number;
  /** Jobs committed in one transaction at most. */
  maxBatch?: number;
  /** How long a job may wait for a lock held elsewhere before it is refused with 503. */
  maxWaitMs?: number;
  /** Called once per committed transaction (feeds mon_writer_commits_total). */
  onCommit?: (jobs: number) => void;
  /** Called when a job is refused because the queue is full. */
  onQueueFull?: () => void;
  /** Called when a whole transaction fails to commit (disk full, I/O error), or an after-commit hook throws. */
  onFailure?: (error: unknown) => void;
  /** Live-update keys of a committed transaction (the invalidation bus). */
  onInvalidate?: (keys: LiveKey[]) => void;
  /**
   * Makes committed transactions durable off the event loop (db.ts: an fsync of the WAL on libuv's
   * thread pool, with the connection at `synchronous = NORMAL`). Jobs settle, and their after-commit
   * hooks run, once the sync that followed their commit is done. Without it, COMMIT itself syncs.
   */
  sync?: () => Promise<void>;
};

/** First retry after a lock held elsewhere; doubles up to `MAX_RETRY_MS`. */
const FIRST_RETRY_MS = 10;
const MAX_RETRY_MS = 200;
const PROBE_MS = 250;

/**
 * The single writer (DESIGN rule 1). Callers enqueue synchronous functions; the writer runs a batch
 * of them in one transaction, each inside its own savepoint so a failing job rolls back alone, then
 * commits and settles the callers. A resolved promise means the write is committed; a write that
 * storage could not take rejects with 503 (Retry-After), never resolves.
 *
 * A lock held by another process (a backup, `sqlite3`) never blocks the event loop: the connection's
 * busy timeout is 0 and the writer retries on timers, refusing jobs that waited longer than `maxWaitMs`.
 */
export class Writer {
  private readonly db: DatabaseSync;
  private queue: Job[] = [];
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly maxWaitMs: number;
  private readonly onCommit: (jobs: number) => void;
  private readonly onQueueFull: () => void;
  private readonly onFailure: (error: unknown) => void;
  private readonly onInvalidate: (keys: LiveKey[]) => void;
  private readonly sync: WriterOptions['sync'];
  /** Jobs of committed batches the running sync does not cover yet. */
  private unsynced: Ran[] = [];
  /** When the running sync began; null when none runs. */
  private syncingSince: number | null = null;
  /** Cancels the scheduled commit; null when none is scheduled. */
  private cancelCommit: (() => void) | null = null;
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private lastCommitAt = 0;
  private retryMs = 0;
  /** When the writer first found the database locked by someone else, until it gets the lock. */
  private blockedSince: number | null = null;
  private readonly prober: NodeJS.Timeout;
  /** A probe's write is being synced. */
  private probing = false;
  /** Failures so far: a probe clears only the failure it saw. */
  private failures = 0;
  /** Why the last transaction failed to commit, until one commits again. */
  failure: string | null = null;

  constructor(db: DatabaseSync, options: WriterOptions = {}) {
    this.db = db;
    this.maxQueue = options.maxQueue ?? 50_000;
    this.maxBatch = options.maxBatch ?? 5_000;
    this.maxWaitMs = options.maxWaitMs ?? 5_000;
    this.onCommit = options.onCommit ?? (() => {});
    this.onQueueFull = options.onQueueFull ?? (() => {});
    this.onFailure = options.onFailure ?? (() => {});
    this.onInvalidate = options.onInvalidate ?? (() => {});
    this.sync = options.sync;
    this.prober = setInterval(() => this.probe(), PROBE_MS);
    this.prober.unref();
  }

  /** Queues `fn`; resolves with its result once committed. Rejects with a 503 Problem when storage cannot take it. */
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

  /** True while another connection has held the write lock for longer than `ms`. */
  blocked(ms = 1000): boolean {
    return this.blockedSince !== null && Date.now() - this.blockedSince >= ms;
  }

  /** False after a failed commit (until one succeeds) or while another process has held the lock for a second. */
  canWrite(): boolean {
    return !this.closed && this.failure === null && !this.blocked();
  }

  /**
   * An idle writer looks at the lock every `PROBE_MS`, so that health reports a lock held elsewhere
   * even when nothing is being written. After a failed commit it also commits a write of its own that
   * takes a new page (a table made and dropped) and clears the failure once that is stored, so that an
   * idle server turns healthy again soon after space comes back, not at its next write.
   */
  private probe(): void {
    if (this.closed || this.queue.length > 0 || this.db.isTransaction || this.probing) return;
    const failures = this.failures;
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.blockedSince = null;
    } catch (error) {
      if (isStorageError(error)) this.blockedSince ??= Date.now();
      return;
    }
    try {
      if (this.failure === null) {
        this.db.exec('ROLLBACK');
        return;
      }
      this.db.exec('CREATE TABLE writer_probe (x); DROP TABLE writer_probe');
      this.db.exec('COMMIT');
    } catch {
      // Still no space: the failure stays, and the next probe tries again.
      try {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        // The connection rolls back on its own when it cannot.
      }
      return;
    }
    if (!this.sync) {
      this.failure = null;
      return;
    }
    // The failure may have been a sync's: the probe's commit counts once it is synced too.
    this.probing = true;
    this.sync().then(
      () => {
        this.probing = false;
        if (this.failures === failures) this.failure = null;
      },
      () => {
        this.probing = false;
      },
    );
  }

  /** True when jobs have waited more than `ms` without a commit, or a sync has run that long: the writer is stuck. */
  stalled(ms = 10_000): boolean {
    const now = Date.now();
    if (this.syncingSince !== null && now - this.syncingSince > ms) return true;
    const oldest = this.queue[0];
    return oldest !== undefined && now - oldest.enqueuedAt > ms && now - this.lastCommitAt > ms;
  }

  /** Resolves once everything queued so far is committed (and synced) or refused. */
  flush(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Refuses new jobs and commits the queued ones. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    this.cancelCommit?.();
    clearInterval(this.prober);
  }

  private schedule(): void {
    if (this.cancelCommit || this.queue.length === 0) return;
    const commit = () => {
      this.cancelCommit = null;
      this.commitBatch();
    };
    // Jobs queued in the same turn share a commit; waiting for a lock held elsewhere retries on a timer.
    if (this.retryMs === 0) {
      const immediate = setImmediate(commit);
      this.cancelCommit = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(commit, this.retryMs);
      this.cancelCommit = () => clearTimeout(timeout);
    }
  }

  private commitBatch(): void {
    if (this.queue.length === 0) {
      this.notifyIdle();
      return;
    }
    if (!this.begin()) {
      this.afterBatch();
      return;
    }
    const batch = this.queue.splice(0, this.maxBatch);
    const ran: Ran[] = [];
    try {
      for (const job of batch) ran.push(this.runJob(job));
      this.db.exec('COMMIT');
    } catch (error) {
      // The transaction itself failed (disk full, I/O error): nothing of this batch is stored.
      try {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        // The connection rolls back on its own when it cannot; nothing more to do here.
      }
      for (const r of ran.reverse()) r.rollBack();
      this.fail(error);
      const refusal = unavailable(5, 'storage cannot take writes right now');
      for (const job of batch) job.reject(isStorageError(error) ? refusal : error);
      this.afterBatch();
      return;
    }
    this.lastCommitAt = Date.now();
    this.onCommit(batch.length);
    if (this.sync) {
      this.unsynced.push(...ran);
      this.startSync();
    } else {
      this.failure = null;
      this.settle(ran, null);
    }
    this.afterBatch();
  }

  /**
   * One sync at a time covers every batch committed before it began: under load, batches committed
   * while a sync runs share the next one (group commit on the disk as well as in the transaction).
   */
  private startSync(): void {
    if (this.syncingSince !== null || this.unsynced.length === 0 || !this.sync) return;
    const covered = this.unsynced;
    this.unsynced = [];
    this.syncingSince = Date.now();
    const synced = (error: Error | null) => {
      this.syncingSince = null;
      if (error) {
        this.fail(error);
      } else {
        this.failure = null;
      }
      this.settle(covered, error);
      this.startSync();
      if (this.queue.length === 0) this.notifyIdle();
    };
    this.sync().then(
      () => synced(null),
      (error: unknown) => synced(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /**
   * A committed batch: after-commit hooks run, live keys go out and callers hear their result. When its
   * sync failed the data may not survive a power cut: callers are refused with 503 (they may try again),
   * while the hooks still run, since memory must follow the database, which holds the rows.
   */
  private settle(ran: Ran[], syncError: Error | null): void {
    const keys = new Set<LiveKey>();
    for (const r of ran) {
      if (!r.ok) continue;
      for (const key of r.keys ?? []) keys.add(key);
      for (const fn of r.after ?? []) {
        try {
          fn();
        } catch (error) {
          this.onFailure(error);
        }
      }
    }
    if (keys.size > 0) this.onInvalidate([...keys]);
    const refusal = syncError ? unavailable(5, 'storage cannot take writes right now') : null;
    for (const r of ran) {
      if (!r.ok) r.job.reject(r.value);
      else if (refusal) r.job.reject(refusal);
      else r.job.resolve(r.value);
    }
  }

  /** Takes the write lock without waiting; on a lock held elsewhere, refuses jobs that waited too long. */
  private begin(): boolean {
    try {
      this.db.exec('BEGIN IMMEDIATE');
      this.blockedSince = null;
      this.retryMs = 0;
      return true;
    } catch (error) {
      const now = Date.now();
      this.blockedSince ??= now;
      this.retryMs = Math.min(MAX_RETRY_MS, Math.max(FIRST_RETRY_MS, this.retryMs * 2));
      if (!isStorageError(error)) this.fail(error);
      const expired = this.queue.filter((job) => now - job.enqueuedAt >= this.maxWaitMs);
      if (expired.length > 0) {
        this.queue = this.queue.filter((job) => now - job.enqueuedAt < this.maxWaitMs);
        const refusal = unavailable(5, 'the database is locked by another process; try again shortly');
        for (const job of expired) job.reject(refusal);
      }
      return false;
    }
  }

  /** A transaction or its sync failed: health says so until a commit or a probe succeeds. */
  private fail(error: unknown): void {
    this.failure = (error as Error).message;
    this.failures++;
    this.onFailure(error);
  }

  private runJob(job: Job): Ran {
    const ran = new Ran(this.db, job);
    this.db.exec('SAVEPOINT job');
    try {
      const value = job.fn(this.db, ran);
      if (value && typeof (value as PromiseLike<unknown>).then === 'function') {
        throw new Error('a writer job must be synchronous');
      }
      this.db.exec('RELEASE job');
      ran.value = value;
    } catch (error) {
      ran.rollBack();
      // A storage failure inside a job (disk full) may have ended the transaction: the savepoint is
      // then gone, and the job's error fails the whole batch.
      try {
        this.db.exec('ROLLBACK TO job');
        this.db.exec('RELEASE job');
      } catch {
        throw error;
      }
      ran.ok = false;
      ran.value = isStorageError(error) ? unavailable(5, 'storage cannot take writes right now') : error;
    }
    return ran;
  }

  private afterBatch(): void {
    if (this.queue.length > 0) this.schedule();
    else this.notifyIdle();
  }

  private idle(): boolean {
    return this.queue.length === 0 && this.syncingSince === null && this.unsynced.length === 0;
  }

  private notifyIdle(): void {
    if (!this.idle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
