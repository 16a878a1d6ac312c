import type { Clock, TimerHandle } from '../clock.ts';

/**
 * One scheduler for every server-side run and heartbeat deadline: a min-heap of due times with one
 * clock timer, and a cap on runs in flight (the rest wait in arrival order). Deadlines are synchronous
 * and do no I/O: they are called as soon as due, never queued behind runs nor counted against the cap.
 * Rescheduling or removing one id touches only that id's entry.
 */
export type SchedulerOptions = {
  clock: Clock;
  /** Runs in flight at most. */
  concurrency: number;
  /** Called when `id` is due; the scheduler counts a run in flight until the promise settles. */
  run: (id: string, dueAt: number) => Promise<void> | void;
  /** Observes each start: how late it is against its due time (benchmarks, metrics). */
  onStart?: (id: string, lateMs: number) => void;
};

type Entry = { at: number; id: string; gen: number; deadline: boolean };

export class Scheduler {
  private readonly options: SchedulerOptions;
  private readonly heap: Entry[] = [];
  /** The live generation of each scheduled id; heap entries of older generations are skipped. */
  private readonly current = new Map<string, number>();
  private ready: Entry[] = [];
  private readyHead = 0;
  private gen = 0;
  private inFlight = 0;
  private timer: TimerHandle | null = null;
  private timerAt = Number.POSITIVE_INFINITY;
  private running = false;

  constructor(options: SchedulerOptions) {
    this.options = options;
  }

  /** Schedules `id` at `at`, replacing its previous time; a `deadline` is called at once when due. */
  set(id: string, at: number, deadline = false): void {
    const gen = ++this.gen;
    this.current.set(id, gen);
    push(this.heap, { at, id, gen, deadline });
    // Replaced times stay in the heap until they reach the top: a heartbeat pinged in a loop would
    // grow it without end. Rebuild it from the live entries when most of it is stale.
    if (this.heap.length > 1024 && this.heap.length > 2 * this.current.size) this.compact();
    if (!this.running) return;
    // Due now (a new or changed check): start it without waiting for a timer.
    if (at <= this.options.clock.now()) this.tick();
    else if (at < this.timerAt) this.arm();
  }

  private compact(): void {
    const live = this.heap.filter((e) => this.current.get(e.id) === e.gen);
    this.heap.length = 0;
    for (const entry of live) push(this.heap, entry);
  }

  remove(id: string): void {
    this.current.delete(id);
  }

  has(id: string): boolean {
    return this.current.has(id);
  }

  get size(): number {
    return this.current.size;
  }

  get active(): number {
    return this.inFlight;
  }

  start(): void {
    this.running = true;
    this.arm();
  }

  stop(): void {
    this.running = false;
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Number.POSITIVE_INFINITY;
  }

  private arm(): void {
    while (this.heap.length > 0 && this.current.get(this.heap[0]!.id) !== this.heap[0]!.gen) pop(this.heap);
    const top = this.heap[0];
    if (!top) return;
    if (this.timer) this.options.clock.clearTimeout(this.timer);
    const { clock } = this.options;
    this.timerAt = top.at;
    this.timer = clock.setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.tick();
      },
      Math.max(0, top.at - clock.now()),
    );
  }

  private tick(): void {
    if (!this.running) return;
    const now = this.options.clock.now();
    const deadlines: Entry[] = [];
    while (this.heap.length > 0 && this.heap[0]!.at <= now) {
      const entry = pop(this.heap)!;
      if (this.current.get(entry.id) === entry.gen) (entry.deadline ? deadlines : this.ready).push(entry);
    }
    for (const entry of deadlines) this.deadline(entry);
    this.drain();
    this.arm();
  }

  private deadline(entry: Entry): void {
    if (!this.running || this.current.get(entry.id) !== entry.gen) return;
    this.current.delete(entry.id);
    try {
      void this.options.run(entry.id, entry.at)?.catch(() => {});
    } catch {
      // A failing deadline must not stop the others.
    }
  }

  private drain(): void {
    while (this.running && this.inFlight < this.options.concurrency && this.readyHead < this.ready.length) {
      const entry = this.ready[this.readyHead++]!;
      if (this.current.get(entry.id) !== entry.gen) continue;
      this.current.delete(entry.id);
      this.inFlight++;
      this.options.onStart?.(entry.id, this.options.clock.now() - entry.at);
      let result: Promise<void> | void;
      try {
        result = this.options.run(entry.id, entry.at);
      } catch {
        result = undefined;
      }
      if (result) void result.catch(() => {}).finally(() => this.done());
      else this.inFlight--;
    }
    if (this.readyHead === this.ready.length) {
      this.ready = [];
      this.readyHead = 0;
    } else if (this.readyHead > 4096) {
      this.ready = this.ready.slice(this.readyHead);
      this.readyHead = 0;
    }
  }

  private done(): void {
    this.inFlight--;
    this.drain();
  }
}

/** Earlier first; equal times in the order they were scheduled. */
function less(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.gen < b.gen);
}

function push(heap: Entry[], entry: Entry): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if (!less(entry, heap[parent]!)) break;
    heap[i] = heap[parent]!;
    i = parent;
  }
  heap[i] = entry;
}

function pop(heap: Entry[]): Entry | undefined {
  const top = heap[0];
  const last = heap.pop();
  if (heap.length === 0 || !last) return top;
  let i = 0;
  for (;;) {
    const l = 2 * i + 1;
    const r = l + 1;
    let smallest = i;
    const at = (k: number) => (k === i ? last : heap[k]!);
    if (l < heap.length && less(heap[l]!, at(smallest))) smallest = l;
    if (r < heap.length && less(heap[r]!, at(smallest))) smallest = r;
    if (smallest === i) break;
    heap[i] = heap[smallest]!;
    i = smallest;
  }
  heap[i] = last;
  return top;
}
