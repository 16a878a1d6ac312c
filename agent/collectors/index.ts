import type { SampleFrame } from '../../protocol/agent.ts';
import { createCpuCollector } from './cpu.ts';
import { createDiskIoCollector } from './diskio.ts';
import { createDiskCollector, type Statfs } from './disks.ts';
import { readLoad } from './load.ts';
import { type MemoryReading, readMemory } from './memory.ts';
import { createNetworkCollector } from './network.ts';
import { createTemperatureCollector } from './temperatures.ts';

/**
 * The host's metrics, one file per collector, each reading only under `root` (MON_HOST_ROOT): the
 * host's `/proc` and `/sys` as mounted into the agent. docs/host-metrics.md says what each counts.
 *
 * Collectors never throw: a file that is missing or unreadable gives null (or an empty list) for its
 * part, and an unexpected error in one collector costs only that part of the sample, reported to
 * `onError`. Rates and CPU compare with the previous call, so one sampler serves one agent.
 */

export type HostSample = Omit<SampleFrame, 'containers' | 'units'>;

export type HostSamplerOptions = {
  /** The host's root as the agent sees it: `/`, or where the host's root is mounted (`/host`). */
  root: string;
  /** statfs for disk usage; tests give fixture mounts their numbers through it. */
  statfs?: Statfs;
  /** How long a filesystem's statfs may take (disks.ts); tests shorten it. */
  statfsDeadlineMs?: number;
  /** Told when a filesystem's statfs misses its deadline (true) and when it answers again (false). */
  onStuckDisk?: (mountPoint: string, stuck: boolean) => void;
  /** Told about an unexpected error of a collector (the agent logs it). */
  onError?: (collector: string, error: unknown) => void;
  /** A monotonic clock in ms for the time between samples (rates.ts's `monotonicMs`). */
  monotonic?: () => number;
};

/** The collector's answer, or `fallback` when it throws (told to `onError`): one collector's fault costs only its part. */
export async function readSafely<T>(
  collector: string,
  read: () => Promise<T>,
  fallback: T,
  onError?: HostSamplerOptions['onError'],
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    onError?.(collector, error);
    return fallback;
  }
}

export function createHostSampler(options: HostSamplerOptions) {
  const { root } = options;
  const cpu = createCpuCollector(root);
  const disks = createDiskCollector({
    root,
    statfs: options.statfs,
    deadlineMs: options.statfsDeadlineMs,
    onStuck: options.onStuckDisk,
  });
  const diskIo = createDiskIoCollector(root, options.monotonic);
  const net = createNetworkCollector(root, options.monotonic);
  const temperatures = createTemperatureCollector(root);
  const noMemory: MemoryReading = { memory: null, swap: null };

  const safely = <T>(collector: string, read: () => Promise<T>, fallback: T) =>
    readSafely(collector, read, fallback, options.onError);

  return {
    /** One sample of the host at `ts` (ms); rates are over the time since the previous call, which must have ended. */
    async sample(ts: number): Promise<HostSample> {
      const [cpuPercent, memory, diskList, io, bandwidth, load, sensors] = await Promise.all([
        safely('cpu', () => cpu.read(), null),
        safely('memory', () => readMemory(root), noMemory),
        safely('disks', () => disks.read(), []),
        safely('diskio', () => diskIo.read(), null),
        safely('network', () => net.read(), null),
        safely('load', () => readLoad(root), null),
        safely('temperatures', () => temperatures.read(), []),
      ]);
      return {
        kind: 'sample',
        ts,
        cpu: cpuPercent,
        memory: memory.memory,
        swap: memory.swap,
        disks: diskList,
        diskIo: io,
        net: bandwidth,
        load,
        temperatures: sensors,
      };
    },
  };
}

export type HostSampler = ReturnType<typeof createHostSampler>;
