import { type Problem, unavailable } from '../problem.ts';
import type { Tx, Writer } from './writer.ts';

/** Turns down one item of a batch being written: its caller gets `error`; the rest of the batch goes on. */
export type Refuse = (index: number, error: unknown) => void;

export type IngestOptions<Item> = {
  writer: Writer;
  /**
   * Stores a batch of items inside one writer job, so the batch commits or rolls back whole. An item
   * that cannot be stored for a reason of its own (its check is gone) is turned down with `refuse`.
   */
  apply: (tx: Tx, items: Item[], refuse: Refuse) => void;
  /** Items written in one job at most. */
  maxBatch?: number;
  /**
   * What an item costs to write (rows it touches, say), and what one job may cost at most: a job then
   * takes items while their total stays within `maxWeight` (always at least one). Without `weigh`,
   * only `maxBatch` bounds a job.
   */
  weigh?: (item: Item) => number;
  maxWeight?: number;
  /**
   * Group commit: after a write, the next waits this long so that items arriving one at a time under
   * steady load share a transaction (one WAL sync) instead of each paying for their own. An idle queue
   * writes at once.
   */
  windowMs?: number;
  /** Acknowledged items waiting at most; beyond, `submit` answers 503 at once. */
  maxAcknowledged?: number;
  /** Unacknowledged items kept at most while storage is busy; beyond, the oldest of them are dropped. */
  maxKept?: number;
  /** Wait before trying again after storage refused a batch. */
  retryMs?: number;
  /**
   * An acknowledged item answered 503: the queue is full, storage cannot take it (a lock held
   * elsewhere, a full disk) or the server is stopping. Feeds `mon_ingest_rejected_total{reason="queue_full"}`.
   */
  onUnavailable?: () => void;
  /** Unacknowledged items dropped: storage is far behind, they failed on their own, or the server stops. */
  onDropped?: (items: Item[], why: string) => void;
};

type Waiting<Item> = {
  item: Item;
  /** Set for an acknowledged item: its caller answers once the item is committed or refused. */
  ack: { resolve: () => void; reject: (error: unknown) => void } | null;
};

/**
 * Honest acknowledgement for inbound data (DESIGN rule 1), in front of the writer. Items queue in
 * order and go to storage in batches: one writer job at a time takes everything waiting when it runs.
 *
 * - `submit(item)` is acknowledged: it resolves once the item is committed, and rejects with 503
 *   (Retry-After) when the queue is full or storage cannot take it. A refused item changes nothing.
 * - `offer(item)` is for data nobody waits on (the server's own check results): kept in memory while
 *   storage is busy, in order, up to `maxKept`; beyond that the oldest unacknowledged items are dropped.
 *   An acknowledged item is never dropped.
 * - A batch that fails for a reason of its own (not storage) is split in halves and tried again until
 *   the failing item is alone: one bad item costs only itself.
 */
export class IngestQueue<Item> {
  private readonly options: Required<Omit<IngestOptions<Item>, 'onUnavailable' | 'onDropped' | 'weigh'>> &
    Pick<IngestOptions<Item>, 'onUnavailable' | 'onDropped' | 'weigh'>;
  private pending: Waiting<Item>[] = [];
  private acknowledged = 0;
  private inFlight: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private windowTimer: NodeJS.Timeout | null = null;
  private lastWriteAt = 0;
  /** Items at the front that were in a failed batch, and the batch size while they are split. */
  private suspects = 0;
  private splitSize = 0;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(options: IngestOptions<Item>) {
    this.options = {
      maxBatch: 5000,
      maxWeight: Number.POSITIVE_INFINITY,
      windowMs: 20,
      maxAcknowledged: 10_000,
      maxKept: 100_000,
      retryMs: 250,
      ...options,
    };
  }

  /** Items waiting to be stored. */
  get size(): number {
    return this.pending.length;
  }

  /** Stores `item`; resolves once committed. Rejects with a 503 Problem when storage cannot take it. */
  submit(item: Item): Promise<void> {
    if (this.closed) {
      this.options.onUnavailable?.();
      return Promise.reject(unavailable(5, 'the server is shutting down'));
    }
    if (this.acknowledged >= this.options.maxAcknowledged) {
      this.options.onUnavailable?.();
      return Promise.reject(unavailable(1, 'the write queue is full'));
    }
    return new Promise<void>((resolve, reject) => {
      this.acknowledged++;
      this.pending.push({ item, ack: { resolve, reject } });
      this.pump();
    });
  }

  /** Stores `item` when storage can; nobody waits for it. */
  offer(item: Item): void {
    if (this.closed) return;
    if (this.pending.length - this.acknowledged >= this.options.maxKept) this.dropOldestKept();
    this.pending.push({ item, ack: null });
    this.pump();
  }

  /** Resolves once everything queued so far is stored or refused. */
  flush(): Promise<void> {
    if (this.pending.length === 0 && !this.inFlight) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Tries once more to store what waits, then refuses new items; what storage still cannot take is dropped. */
  async close(): Promise<void> {
    this.clearTimers();
    this.write();
    await this.flush();
    this.closed = true;
    this.clearTimers();
    const left = this.refuse(unavailable(5, 'the server is shutting down'));
    if (left.length > 0) this.options.onDropped?.(left, 'the server stopped before storage took them');
    this.pending = [];
  }

  private pump(): void {
    if (this.inFlight || this.retryTimer || this.windowTimer || this.pending.length === 0) return;
    const wait =
      this.pending.length >= this.options.maxBatch
        ? 0
        : this.lastWriteAt + this.options.windowMs - Date.now();
    if (wait <= 0) {
      this.write();
      return;
    }
    this.windowTimer = setTimeout(() => {
      this.windowTimer = null;
      this.write();
    }, wait);
    this.windowTimer.unref();
  }

  private write(): void {
    if (this.inFlight || this.pending.length === 0) return;
    let taken: Waiting<Item>[] = [];
    const refused = new Map<number, unknown>();
    const job = this.options.writer.run((_db, tx) => {
      // Takes what waits when the job runs, not when it was queued: later arrivals share the commit.
      const size = this.suspects > 0 ? this.splitSize : this.batchSize();
      taken = this.pending.splice(0, size);
      this.options.apply(
        tx,
        taken.map((w) => w.item),
        (index, error) => refused.set(index, error),
      );
    });
    this.inFlight = job.then(
      () => {
        this.inFlight = null;
        this.lastWriteAt = Date.now();
        this.suspects = Math.max(0, this.suspects - taken.length);
        taken.forEach((w, i) => {
          this.settle(w, refused.has(i) ? refused.get(i) : null);
        });
        this.pump();
        this.notifyIdle();
      },
      (error: unknown) => {
        this.inFlight = null;
        if ((error as Problem).status === 503) this.storageRefused(taken, error);
        else this.batchFailed(taken, error);
        this.notifyIdle();
      },
    );
  }

  /** How many of the waiting items the next job takes: `maxBatch`, fewer when their weight says so. */
  private batchSize(): number {
    const { maxBatch, weigh, maxWeight } = this.options;
    if (!weigh) return maxBatch;
    let n = 0;
    let total = 0;
    for (const w of this.pending) {
      total += weigh(w.item);
      if (n >= maxBatch || (n > 0 && total > maxWeight)) break;
      n++;
    }
    return n;
  }

  /**
   * Storage refused (full queue, lock held elsewhere, disk full): acknowledged items answer 503 now;
   * the others go back in front, in order, and are tried again shortly.
   */
  private storageRefused(taken: Waiting<Item>[], error: unknown): void {
    for (const w of taken) this.settle(w, error);
    this.pending.unshift(...taken.filter((w) => w.ack === null));
    this.refuse(error);
    if (this.pending.length === 0 || this.closed) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.pump();
    }, this.options.retryMs);
    this.retryTimer.unref();
  }

  /** The batch failed for a reason of its own: split it until the item that fails is alone. */
  private batchFailed(taken: Waiting<Item>[], error: unknown): void {
    if (taken.length > 1) {
      this.pending.unshift(...taken);
      this.suspects = Math.max(this.suspects, taken.length);
      this.splitSize = Math.ceil(taken.length / 2);
    } else {
      const [w] = taken;
      this.suspects = Math.max(0, this.suspects - 1);
      if (w?.ack) this.settle(w, error);
      else if (w) this.options.onDropped?.([w.item], String((error as Error)?.message ?? error));
    }
    this.pump();
  }

  /** Rejects every acknowledged item waiting; returns the unacknowledged ones left. */
  private refuse(error: unknown): Item[] {
    const kept: Waiting<Item>[] = [];
    for (const w of this.pending) {
      if (w.ack) this.settle(w, error);
      else kept.push(w);
    }
    this.pending = kept;
    return kept.map((w) => w.item);
  }

  private settle(w: Waiting<Item>, error: unknown): void {
    if (!w.ack) return;
    this.acknowledged--;
    if (error === null) w.ack.resolve();
    else {
      if ((error as Problem).status === 503) this.options.onUnavailable?.();
      w.ack.reject(error);
    }
  }

  private dropOldestKept(): void {
    const i = this.pending.findIndex((w) => w.ack === null);
    if (i < 0) return;
    const [w] = this.pending.splice(i, 1);
    this.options.onDropped?.([w!.item], 'storage is too far behind');
  }

  private clearTimers(): void {
    for (const timer of [this.retryTimer, this.windowTimer]) if (timer) clearTimeout(timer);
    this.retryTimer = null;
    this.windowTimer = null;
  }

  private notifyIdle(): void {
    if (this.inFlight) return;
    if (this.pending.length > 0 && !this.retryTimer && !this.closed) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
