import type { ContainerSample, SampleFrame, UnitSample } from '../protocol/agent.ts';
import { createHostSampler } from './collectors/index.ts';
import { createContainerReader, defaultDockerSocket } from './docker.ts';
import type { AgentLog } from './log.ts';
import { createUnitReader } from './systemd.ts';

/** What a sample is made of: the host's part, its containers and its systemd units. */
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
    units: createUnitReader({}),
    socketPath,
  };
}

/**
 * Takes samples: the three readers in parallel, each allowed to fail (its part is then empty, and the
 * change is logged once, when it starts and when it ends).
 */
export function createSampler(readers: SampleReaders, log: AgentLog, where: { socketPath: string }) {
  const missing = { host: false, containers: false, units: false };
  const note = (part: keyof typeof missing, absent: boolean, gone: string, back: string) => {
    if (absent === missing[part]) return;
    missing[part] = absent;
    if (absent) log.warn(gone);
    else log.info(back);
  };
  return async (ts: number): Promise<SampleFrame> => {
    const [host, containers, units] = await Promise.allSettled([
      readers.host.sample(ts),
      readers.containers.read(ts),
      readers.units.read(ts),
    ]);
    note(
      'host',
      host.status === 'rejected',
      `cannot read the host's metrics (${host.status === 'rejected' ? reason(host.reason) : ''})`,
      "the host's metrics are read again",
    );
    const containerList = containers.status === 'fulfilled' ? containers.value : null;
    note(
      'containers',
      containerList === null,
      `no container runtime answers at ${where.socketPath}: no containers in the samples`,
      `the container runtime at ${where.socketPath} answers`,
    );
    const unitList = units.status === 'fulfilled' ? units.value : null;
    note('units', unitList === null, 'systemd does not answer: no units in the samples', 'systemd answers');
    return {
      ...(host.status === 'fulfilled' ? host.value : emptyHostPart(ts)),
      containers: containerList,
      units: unitList,
    };
  };
}

function emptyHostPart(ts: number): Omit<SampleFrame, 'containers' | 'units'> {
  return {
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
  };
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
