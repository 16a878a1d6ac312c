import { type Problem, unavailable } from '../problem.ts';
import type { Tx, Writer } from './writer.ts';

export type IngestOptions<Item> = {
  writer: Writer;
  /** Stores a batch of items; runs inside one writer job, so the batch commits or rolls back whole. */
  apply: (tx: Tx, items: Item[]) => void;
  /** Items written in one job at most. */
  maxBatch?: number;
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
  /** A submit refused because the queue is full (feeds `mon_ingest_rejected_total{reason="queue_full"}`). */
  onQueueFull?: () => void;
  /** Unacknowledged items dropped: storage is far behind, or they cannot be written at all. */
  onDropped?: (count: number, why: string) => void;
};

type Waiting<Item> = {
  item: Item;
  /** Set for an acknowledged item: its caller answers once the item is committed or refused. */
  ack: { resolve: () => void; reject: (error: unknown) => void } | null;
};

/**
 * Honest acknowledgement for inbound data (DESIGN rule 1), in front of the writer. Items queue in
 * order and go to storage in batches: one writer job at a time takes everything waiting when it runs,
 * so data arriving one item at a time under load shares transactions.
 *
 * - `submit(item)` is acknowledged: it resolves once the item is committed, and rejects with 503
 *   (Retry-After) when the queue is full or storage cannot take it. A refused item changes nothing.
 * - `offer(item)` is for data nobody waits on (the server's own check results): kept in memory while
 *   storage is busy, in order, up to `maxKept`; beyond that the oldest unacknowledged items are dropped.
 *   An acknowledged item is never dropped.
 */
export class IngestQueue<Item> {
  private readonly options: Required<Omit<IngestOptions<Item>, 'onQueueFull' | 'onDropped'>> &
    Pick<IngestOptions<Item>, 'onQueueFull' | 'onDropped'>;
  private pending: Waiting<Item>[] = [];
  private acknowledged = 0;
  private inFlight: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private windowTimer: NodeJS.Timeout | null = null;
  private lastWriteAt = 0;
  private idleWaiters: (() => void)[] = [];
  private closed = false;

  constructor(options: IngestOptions<Item>) {
    this.options = {
      maxBatch: 5000,
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
    if (this.closed) return Promise.reject(unavailable(5, 'the server is shutting down'));
    if (this.acknowledged >= this.options.maxAcknowledged) {
      this.options.onQueueFull?.();
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
    const kept = this.pending.length - this.acknowledged;
    if (kept >= this.options.maxKept) this.dropOldestKept();
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
    for (const timer of [this.retryTimer, this.windowTimer]) if (timer) clearTimeout(timer);
    this.retryTimer = null;
    this.windowTimer = null;
    this.write();
    await this.flush();
    this.closed = true;
    this.refuse(unavailable(5, 'the server is shutting down'), true);
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
  }

  private write(): void {
    if (this.inFlight || this.pending.length === 0) return;
    let taken: Waiting<Item>[] = [];
    const job = this.options.writer.run((_db, tx) => {
      // Takes what waits when the job runs, not when it was queued: later arrivals share the commit.
      taken = this.pending.splice(0, this.options.maxBatch);
      this.options.apply(
        tx,
        taken.map((w) => w.item),
      );
    });
    this.inFlight = job.then(
      () => {
        this.inFlight = null;
        this.lastWriteAt = Date.now();
        for (const w of taken) this.settle(w, null);
        this.pump();
        this.notifyIdle();
      },
      (error: unknown) => {
        this.inFlight = null;
        for (const w of taken) this.settle(w, error);
        const kept = taken.filter((w) => w.ack === null);
        if ((error as Problem).status === 503) {
          // Storage refused (full queue, lock held elsewhere, disk full): the unacknowledged items go
          // back in front, in order, and are tried again shortly; acknowledged ones answer 503 now.
          this.pending.unshift(...kept);
          this.refuse(error, false);
          if (this.pending.length > 0 && !this.closed) {
            this.retryTimer = setTimeout(() => {
              this.retryTimer = null;
              this.pump();
            }, this.options.retryMs);
          }
        } else {
          // Any other failure would fail again: these items are dropped, the rest go on.
          if (kept.length > 0)
            this.options.onDropped?.(kept.length, String((error as Error)?.message ?? error));
          this.pump();
        }
        this.notifyIdle();
      },
    );
  }

  /** Rejects every acknowledged item waiting; `dropKept` also drops the unacknowledged ones. */
  private refuse(error: unknown, dropKept: boolean): void {
    const kept: Waiting<Item>[] = [];
    for (const w of this.pending) {
      if (w.ack) this.settle(w, error);
      else kept.push(w);
    }
    if (dropKept && kept.length > 0) {
      this.options.onDropped?.(kept.length, String((error as Error).message ?? error));
      this.pending = [];
    } else this.pending = kept;
  }

  private settle(w: Waiting<Item>, error: unknown): void {
    if (!w.ack) return;
    this.acknowledged--;
    if (error === null) w.ack.resolve();
    else w.ack.reject(error);
  }

  private dropOldestKept(): void {
    const i = this.pending.findIndex((w) => w.ack === null);
    if (i < 0) return;
    this.pending.splice(i, 1);
    this.options.onDropped?.(1, 'storage is too far behind');
  }

  private notifyIdle(): void {
    if (this.pending.length > 0 && !this.retryTimer && !this.closed) return;
    if (this.inFlight) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
