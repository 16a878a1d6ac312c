import type { ContainerSample, SampleFrame, UnitSample } from '../protocol/agent.ts';
import { createHostSampler } from './collectors/index.ts';
import { createContainerReader, defaultDockerSocket } from './docker.ts';
import type { AgentLog } from './log.ts';
import { createUnitReader } from './systemd.ts';

/**
 * What a sample is made of: the host's part, its containers and its systemd units. None of them
 * rejects: a collector of the host's part that fails gives its part's fallback (collectors/index.ts,
 * `readSafely`), and the container runtime or systemd not answering gives null.
 */
export type SampleReaders = {
  host: { sample(ts: number): Promise<Omit<SampleFrame, 'containers' | 'units'>> };
  containers: { read(ts: number): Promise<ContainerSample[] | null> };
  units: { read(ts: number): Promise<UnitSample[] | null> };
};

/** The readers of this host: files under the host root, the container runtime's socket, systemctl. */
export function hostReaders(root: string): SampleReaders & { socketPath: string } {
  const socketPath = defaultDockerSocket(root);
  return {
    host: createHostSampler({ root }),
    containers: createContainerReader({ socketPath }),
    units: createUnitReader({ hostRoot: root }),
    socketPath,
  };
}

/**
 * Takes samples: the three readers in parallel. Containers or units the host has no runtime or systemd
 * for are left out (null), which is logged once, when it starts and when it ends.
 */
export function createSampler(readers: SampleReaders, log: AgentLog, where: { socketPath: string }) {
  const missing = { containers: false, units: false };
  const note = (part: keyof typeof missing, absent: boolean, gone: string, back: string) => {
    if (absent === missing[part]) return;
    missing[part] = absent;
    if (absent) log.warn(gone);
    else log.info(back);
  };
  return async (ts: number): Promise<SampleFrame> => {
    const [host, containers, units] = await Promise.all([
      readers.host.sample(ts),
      readers.containers.read(ts),
      readers.units.read(ts),
    ]);
    note(
      'containers',
      containers === null,
      `no container runtime answers at ${where.socketPath}: no containers in the samples`,
      `the container runtime at ${where.socketPath} answers`,
    );
    note('units', units === null, 'systemd does not answer: no units in the samples', 'systemd answers');
    return { ...host, containers, units };
  };
}
