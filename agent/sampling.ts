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
  /** `problem`: why the last read gave null (docker.ts, systemd.ts), for the log. */
  containers: { read(ts: number): Promise<ContainerSample[] | null>; problem?(): string | null };
  units: { read(ts: number): Promise<UnitSample[] | null>; problem?(): string | null };
};

/**
 * The readers of this host: files under the host root, the container runtime's socket, systemctl
 * (run with `childEnv`, the environment without MON_* that main.ts makes with `commandEnv`).
 */
export function hostReaders(
  root: string,
  log: AgentLog,
  childEnv: NodeJS.ProcessEnv,
  /** DOCKER_HOST's socket (settings.ts), else the first of docker.ts's that exists. */
  dockerSocket: string | null = null,
): SampleReaders & { socketPath: string } {
  const socketPath = dockerSocket ?? defaultDockerSocket(root);
  return {
    host: createHostSampler({
      root,
      onStuckDisk: (mountPoint, stuck) => {
        if (stuck) log.warn(`statfs of ${mountPoint} does not answer: left out of the samples until it does`);
        else log.info(`statfs of ${mountPoint} answered: measured again`);
      },
    }),
    containers: createContainerReader({ socketPath }),
    units: createUnitReader({ hostRoot: root, env: childEnv }),
    socketPath,
  };
}

/**
 * How long each part of a sample may take. Longer than the Engine API's deadline (5 s a request) and
 * systemctl's (10 s), shorter than the 15 s between samples.
 */
export const PART_DEADLINE_MS = 12_000;

const LATE = Symbol('late');

/**
 * Takes samples: the three readers in parallel. Containers or units the host has no runtime or systemd
 * for are left out (null), which is logged with the reader's reason (the socket's error, systemctl's
 * first line on stderr) once, when it starts or the reason changes, and once when it ends.
 *
 * No reader can hold the samples up: a part that has not answered within `deadlineMs` is left out of
 * the sample (the host's part as nulls and empty lists, containers and units as null), and it is not
 * asked again until that call ends, so calls do not pile up on it. That is logged once, when it starts
 * and when the part answers in time again.
 */
export function createSampler(
  readers: SampleReaders,
  log: AgentLog,
  where: { socketPath: string; deadlineMs?: number },
) {
  const deadlineMs = where.deadlineMs ?? PART_DEADLINE_MS;
  const bounded = <T>(label: string, read: (ts: number) => Promise<T>) => {
    let pending = false;
    let late = false;
    return async (ts: number): Promise<T | typeof LATE> => {
      if (pending) return LATE;
      pending = true;
      const call = read(ts).finally(() => {
        pending = false;
      });
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<typeof LATE>((resolve) => {
        timer = setTimeout(resolve, deadlineMs, LATE);
      });
      try {
        const value = await Promise.race([call, deadline]);
        if (value === LATE && !late)
          log.warn(
            `${label} took longer than ${deadlineMs / 1000} s: left out of the samples until it answers in time`,
          );
        else if (value !== LATE && late) log.info(`${label} answered in time again`);
        late = value === LATE;
        return value;
      } finally {
        clearTimeout(timer);
      }
    };
  };
  const parts = {
    host: bounded('the host metrics', (ts) => readers.host.sample(ts)),
    containers: bounded('the container runtime', (ts) => readers.containers.read(ts)),
    units: bounded('systemd', (ts) => readers.units.read(ts)),
  };
  // Why each part is missing (null: it is not): logged when that changes, so once per run of a failure.
  const missing: { containers: string | null; units: string | null } = { containers: null, units: null };
  const note = (part: keyof typeof missing, why: string | null, back: string) => {
    if (why === missing[part]) return;
    const was = missing[part];
    missing[part] = why;
    if (why !== null) log.warn(`${why}: left out of the samples`);
    else if (was !== null) log.info(back);
  };
  return async (ts: number): Promise<SampleFrame> => {
    const [host, containers, units] = await Promise.all([
      parts.host(ts),
      parts.containers(ts),
      parts.units(ts),
    ]);
    // A late part says nothing of whether the runtime or systemd is there.
    if (containers !== LATE)
      note(
        'containers',
        containers === null
          ? (readers.containers.problem?.() ?? `no container runtime answers at ${where.socketPath}`)
          : null,
        `the container runtime at ${where.socketPath} answers: containers are in the samples again`,
      );
    if (units !== LATE)
      note(
        'units',
        units === null ? (readers.units.problem?.() ?? 'systemd does not answer') : null,
        'systemd answers: units are in the samples again',
      );
    return {
      ...(host === LATE ? emptyHost(ts) : host),
      containers: containers === LATE ? null : containers,
      units: units === LATE ? null : units,
    };
  };
}

/** The host's part of a sample with nothing measured. */
function emptyHost(ts: number): Omit<SampleFrame, 'containers' | 'units'> {
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
