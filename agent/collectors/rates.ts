import { readText, roundTo } from './files.ts';

/**
 * Bytes per second from two readings of per-device byte counters (disks, network cards), summed over
 * the devices counted. Each device is measured on its own: one that appeared since the previous reading
 * has nothing to compare with, and one whose counters went back (a driver reloaded, a 32-bit counter
 * wrapped) cannot be measured for this interval; both are left out of it and count from the next.
 */

/**
 * Milliseconds of a monotonic clock (the process's), for the time between two readings of a counter:
 * the wall clock may step (NTP at boot, a date set by hand) and would make a rate of that step. The
 * samples' time stamps stay the wall clock's. `process.hrtime`, not `performance.now()`, whose first
 * use loads Node's performance modules (11 of them) into the agent.
 */
export const monotonicMs = (): number => {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
};

/** Two byte counters of a device: read and written, or received and sent. */
export type Counters = { a: number; b: number };
/** `at`: when the counters were read, on a monotonic clock (ms). */
export type Reading = { at: number; devices: Map<string, Counters> };

/** The summed rates of the devices measured in both readings; null on the first reading or without time. */
export function counterRates(before: Reading | null, after: Reading): { a: number; b: number } | null {
  if (before === null) return null;
  const seconds = (after.at - before.at) / 1000;
  if (!(seconds > 0)) return null;
  let a = 0;
  let b = 0;
  for (const [name, now] of after.devices) {
    const then = before.devices.get(name);
    if (!then || now.a < then.a || now.b < then.b) continue;
    a += now.a - then.a;
    b += now.b - then.b;
  }
  return { a: roundTo(a / seconds, 0), b: roundTo(b / seconds, 0) };
}

/**
 * Remembers a yes-or-no answer per device name (is it a physical disk, a physical card) so that sysfs
 * is asked once per device, not at every sample; names gone from the host are forgotten.
 */
export function createNameCache(decide: (name: string) => Promise<boolean>) {
  let known = new Map<string, boolean>();
  return {
    /** The names of `names` that pass, asking `decide` only for names not seen at the last call. */
    async keep(names: readonly string[]): Promise<Set<string>> {
      const next = new Map<string, boolean>();
      await Promise.all(
        names.map(async (name) => {
          next.set(name, known.get(name) ?? (await decide(name)));
        }),
      );
      known = next;
      return new Set(names.filter((name) => next.get(name)));
    },
  };
}

/**
 * Rates of the devices of a counters file (`path`, read by `parse`) that `counts` keeps, over the
 * time between two calls on `now` (monotonicMs): null on the first reading, when the file cannot be
 * read, and when no device is kept.
 */
export function createCounterRates(
  path: string,
  parse: (text: string) => Map<string, Counters>,
  counts: (name: string) => Promise<boolean>,
  now: () => number = monotonicMs,
) {
  const kept = createNameCache(counts);
  let previous: Reading | null = null;
  return async (): Promise<{ a: number; b: number } | null> => {
    const text = await readText(path);
    const at = now();
    const rows = text === null ? new Map<string, Counters>() : parse(text);
    const devices = new Map<string, Counters>();
    for (const name of await kept.keep([...rows.keys()])) devices.set(name, rows.get(name)!);
    const before = previous;
    previous = devices.size > 0 ? { at, devices } : null;
    return previous && counterRates(before, previous);
  };
}
