import type { Clock, TimerHandle } from './clock.ts';

/** A summarised event writes at most one line per key in this time. */
export const SUMMARY_EVERY_MS = 60_000;

export type LogSummary<T> = {
  /** Notes one occurrence under `key`, with its details: a line now, or counted for later. */
  note(key: string, latest: T): void;
  /** Writes the counts not yet written and stops the timer (the server is stopping). */
  stop(): void;
};

type Pending<T> = {
  /** The details of the latest occurrence. */
  latest: T;
  /** Occurrences since the key's last line. */
  count: number;
  /** When the key may have its next line. */
  until: number;
};

/**
 * An event that can repeat thousands of times a second (a refused request, a failing disk): the first
 * occurrence of a key is a line at once with `count: 1`; those that follow within the minute are
 * counted, and written as one line with their `count` and the latest details when the minute is over
 * (which starts the next minute). A flood writes a line a minute per key, not one per occurrence, and
 * no occurrence goes uncounted. One clock timer for all keys: they are kept in the order their minutes
 * end. At most `maxKeys` are followed; beyond, the oldest is written early.
 */
export function logSummary<T>(
  clock: Clock,
  write: (latest: T, count: number) => void,
  options: { everyMs?: number; maxKeys?: number } = {},
): LogSummary<T> {
  const everyMs = options.everyMs ?? SUMMARY_EVERY_MS;
  const maxKeys = options.maxKeys ?? 10_000;
  // In the order their minutes end.
  const pending = new Map<string, Pending<T>>();
  let timer: TimerHandle | null = null;

  function arm(): void {
    if (timer) clock.clearTimeout(timer);
    timer = null;
    const first = pending.values().next();
    if (first.done) return;
    timer = clock.setTimeout(fire, Math.max(0, first.value.until - clock.now()));
  }

  function fire(): void {
    timer = null;
    const now = clock.now();
    const due: [string, Pending<T>][] = [];
    for (const [key, p] of pending) {
      if (p.until > now) break;
      due.push([key, p]);
    }
    for (const [key, p] of due) {
      pending.delete(key);
      if (p.count === 0) continue;
      write(p.latest, p.count);
      // Still under way: the next line comes a minute after this one at the earliest.
      pending.set(key, { ...p, count: 0, until: now + everyMs });
    }
    arm();
  }

  return {
    note(key, latest) {
      const known = pending.get(key);
      if (known) {
        known.count++;
        known.latest = latest;
        return;
      }
      if (pending.size >= maxKeys) {
        const [oldKey, oldest] = pending.entries().next().value!;
        pending.delete(oldKey);
        if (oldest.count > 0) write(oldest.latest, oldest.count);
      }
      write(latest, 1);
      pending.set(key, { latest, count: 0, until: clock.now() + everyMs });
      if (pending.size === 1) arm();
    },
    stop() {
      if (timer) clock.clearTimeout(timer);
      timer = null;
      for (const p of pending.values()) if (p.count > 0) write(p.latest, p.count);
      pending.clear();
    },
  };
}
