import { join } from 'node:path';
import type { SampleFrame } from '../../protocol/agent.ts';
import { readText } from './files.ts';

/**
 * Memory and swap from `<root>/proc/meminfo` (values in kB).
 *
 * Memory used = MemTotal − MemAvailable: what programs hold, the cache the kernel could give back left
 * out. Kernels before 3.14 have no MemAvailable: there used = MemTotal − MemFree − Buffers − Cached.
 * SReclaimable (slab memory the kernel can free) is not subtracted there: the definition names free,
 * buffers and cache only, and the `free` of those kernels' own distributions did not subtract it
 * either, so the number matches what the host's own tools showed.
 *
 * Swap used = SwapTotal − SwapFree; null on a host without swap (SwapTotal 0), so there is no swap chart.
 */

export type MemoryReading = Pick<SampleFrame, 'memory' | 'swap'>;

const nothing: MemoryReading = { memory: null, swap: null };

/** The `Name: value kB` lines of meminfo, in bytes. */
function meminfoBytes(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const value = Number.parseInt(line.slice(colon + 1), 10);
    if (Number.isFinite(value) && value >= 0) values.set(line.slice(0, colon), value * 1024);
  }
  return values;
}

export function parseMeminfo(text: string): MemoryReading {
  const kb = meminfoBytes(text);
  const total = kb.get('MemTotal');
  let memory: MemoryReading['memory'] = null;
  if (total !== undefined && total > 0) {
    const available = kb.get('MemAvailable');
    const used =
      available !== undefined
        ? total - available
        : total - (kb.get('MemFree') ?? 0) - (kb.get('Buffers') ?? 0) - (kb.get('Cached') ?? 0);
    memory = { used: Math.min(Math.max(used, 0), total), total };
  }
  const swapTotal = kb.get('SwapTotal') ?? 0;
  const swapFree = kb.get('SwapFree') ?? 0;
  const swap =
    swapTotal > 0 ? { used: Math.min(Math.max(swapTotal - swapFree, 0), swapTotal), total: swapTotal } : null;
  return { memory, swap };
}

/** Reads memory and swap; both null when meminfo cannot be read. */
export async function readMemory(root: string): Promise<MemoryReading> {
  const text = await readText(join(root, '/proc/meminfo'));
  return text === null ? nothing : parseMeminfo(text);
}
