/** Time source for every engine: production uses the system clock, tests drive a FakeClock. */
export type TimerHandle = { readonly id: number };

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** The longest delay Node's setTimeout honours. */
const maxDelay = 2 ** 31 - 1;

export const systemClock: Clock = (() => {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const due = Date.now() + ms;
      // Node fires delays above 2^31-1 ms at once: wait in steps up to that (yearly crons, far deadlines).
      const arm = () => {
        const t = setTimeout(
          () => {
            if (Date.now() < due) return arm();
            timers.delete(id);
            fn();
          },
          Math.min(Math.max(0, due - Date.now()), maxDelay),
        );
        t.unref();
        timers.set(id, t);
      };
      arm();
      return { id };
    },
    clearTimeout(handle) {
      const t = timers.get(handle.id);
      if (t) clearTimeout(t);
      timers.delete(handle.id);
    },
  };
})();

/** A clock that only moves when told to; `advance` fires due timers in time order. */
export class FakeClock implements Clock {
  private time: number;
  private timers = new Map<number, { at: number; fn: () => void }>();
  private next = 1;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.next++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers.delete(handle.id);
  }

  /**
   * Moves time forward by `ms` at once, as a machine waking from sleep: each timer then due fires once,
   * at the new time. For tests that need a month to pass, not the month's 43,200 minute timers.
   */
  async jump(ms: number): Promise<void> {
    this.time += ms;
    await this.advance(0);
  }

  /** Moves time forward by `ms`, firing timers as their time comes and letting promises settle between them. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      let due: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at <= end && (!due || entry[1].at < due[1].at)) due = entry;
      }
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].fn();
      await settle();
    }
    this.time = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((r) => setImmediate(r));
}
