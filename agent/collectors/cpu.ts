import { join } from 'node:path';
import { readText, roundTo } from './files.ts';

/**
 * CPU: percent of all cores busy over the time between two readings of `<root>/proc/stat`.
 *
 * The first line sums every core: `cpu user nice system idle iowait irq softirq steal guest guest_nice`
 * (USER_HZ ticks; older kernels stop after `softirq` or `steal`, a missing column counts as 0).
 * total = user + nice + system + idle + iowait + irq + softirq + steal, and busy = total − idle −
 * iowait − steal. `guest` and `guest_nice` are not added: the kernel already counts them inside `user`
 * and `nice`, so adding them would count a virtual machine's time twice.
 */

export type CpuTicks = { total: number; busy: number };

/** The ticks of the `cpu` line of /proc/stat, or null when there is none. */
export function parseCpuTicks(stat: string): CpuTicks | null {
  const end = stat.indexOf('\n');
  const line = end === -1 ? stat : stat.slice(0, end);
  const fields = line.trim().split(/\s+/);
  if (fields[0] !== 'cpu' || fields.length < 5) return null;
  const tick = (index: number) => {
    const value = Number(fields[index] ?? 0);
    return Number.isFinite(value) && value >= 0 ? value : 0;
  };
  const user = tick(1);
  const nice = tick(2);
  const system = tick(3);
  const idle = tick(4);
  const iowait = tick(5);
  const irq = tick(6);
  const softirq = tick(7);
  const steal = tick(8);
  const total = user + nice + system + idle + iowait + irq + softirq + steal;
  return { total, busy: total - idle - iowait - steal };
}

/**
 * Percent busy between two readings; null when no tick passed or when the counters went back (the
 * counters restarted, as after a checkpoint restore: that interval cannot be measured).
 */
export function cpuPercent(before: CpuTicks, after: CpuTicks): number | null {
  const total = after.total - before.total;
  if (total <= 0) return null;
  // A column may step back by a tick (iowait does on tickless kernels): keep the result in 0..100.
  const busy = Math.min(Math.max(after.busy - before.busy, 0), total);
  return roundTo((busy / total) * 100, 2);
}

/** Reads CPU use; the first reading gives null, each later one the percent since the one before. */
export function createCpuCollector(root: string) {
  const path = join(root, '/proc/stat');
  let previous: CpuTicks | null = null;
  return {
    async read(): Promise<number | null> {
      const text = await readText(path);
      const now = text === null ? null : parseCpuTicks(text);
      const before = previous;
      previous = now;
      return before && now ? cpuPercent(before, now) : null;
    },
  };
}
