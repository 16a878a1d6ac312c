import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ContainerSample, SampleFrame, UnitSample } from '../protocol/agent.ts';

/**
 * Stand-ins for the host sampler (agent/collectors/), the container reader (agent/docker.ts) and the
 * unit reader (agent/systemd.ts), with their signatures, until those land: the host part is empty and
 * there is no container runtime or systemd to ask.
 */

export function createHostSampler(_options: { root: string }): {
  sample(ts: number): Promise<Omit<SampleFrame, 'containers' | 'units'>>;
} {
  return {
    sample: async (ts) => ({
      kind: 'sample',
      ts,
      cpu: null,
      memory: null,
      swap: null,
      disks: [],
      diskIo: null,
      net: null,
      load: null,
      temperatures: [],
    }),
  };
}

export function defaultDockerSocket(root: string): string {
  const mounted = join(root, 'var/run/docker.sock');
  return existsSync(mounted) ? mounted : '/var/run/docker.sock';
}

export function createContainerReader(_options: { socketPath: string }): {
  read(ts: number): Promise<ContainerSample[] | null>;
} {
  return { read: async () => null };
}

export function createUnitReader(_options: { systemctl?: string }): {
  read(ts: number): Promise<UnitSample[] | null>;
} {
  return { read: async () => null };
}
