/**
 * The agent protocol's numbers and word lists (protocol/agent.ts has the frames and their schemas and
 * re-exports these). Apart because the agent loads them at run time, and nothing here needs the schema
 * library: the agent takes only types from agent.ts, so that library never loads in it.
 */

/** The protocol version both sides speak; the poll answers the server's. */
export const AGENT_PROTOCOL = 1;

/**
 * What an agent can run beyond the base protocol; it names them in the poll's `capabilities`. A check
 * that needs a capability the agent lacks is not given to it, and the check says why (SPEC Check
 * behavior 4: agents must be updated before they get ping checks or request headers).
 */
export const agentCapabilities = ['ping', 'headers'] as const;
// A new check kind needs a capability of its own too, and so does a new assertion (or a new field of
// one, protocol/kinds.ts `assertionFields`): an agent without it is then not given the check, and the
// check says why on the server. An agent given a kind or an assertion it does not know only leaves the
// check out and says so in its log (agent/poll-answer.ts): no run tells the server, whose stale rule
// then marks the check unknown. It never runs it: an assertion it cannot evaluate would fail the run.
export type AgentCapability = (typeof agentCapabilities)[number];

/**
 * The header in which the agent sends its clock with each request (frames and poll): milliseconds since
 * the epoch, as digits, taken as the request is made. The server measures the host's clock against its
 * own with it (docs/hosts.md "Clocks"). Not the standard `Date`: it has whole seconds only, and the
 * agent formats no Date (docs/agent.md "Footprint").
 */
export const AGENT_TIME_HEADER = 'mon-agent-time';

/** The agent samples every 15 s (SPEC Limits). */
export const SAMPLE_EVERY_MS = 15_000;
/**
 * An agent is silent once no frame arrived for four sampling intervals: its checks turn `unknown` and
 * its host opens an incident of its own (SPEC Check behavior 6). A frame ends the silence.
 */
export const AGENT_SILENT_AFTER_MS = 4 * SAMPLE_EVERY_MS;
/** Body of `POST /agent/v1/frames`: at most 4 MiB as sent (gzip); at most this much once inflated. */
export const MAX_FRAMES_BYTES = 4 * 1024 * 1024;
export const MAX_INFLATED_FRAMES_BYTES = 32 * 1024 * 1024;
/**
 * Bounds of a frame's values (protocol/agent.ts), beyond which a reading is broken, not a fact:
 * bytes (memory, disks, rates per second) up to 2^60, an exbibyte, more than any host holds or moves
 * in a second; cores up to 8,192, Linux's most (`NR_CPUS`), so a container or unit uses at most
 * 100 % of each; a load average counts tasks, at most 2^22 (the highest `pid_max`); temperatures from
 * -100 to 300 °C; a run's latency up to an hour (checks time out within 2 minutes); a command check's
 * number up to ±10^18.
 */
export const MAX_BYTES = 2 ** 60;
export const MAX_CORES = 8192;
export const MAX_LOAD = 2 ** 22;
export const MIN_CELSIUS = -100;
export const MAX_CELSIUS = 300;
export const MAX_LATENCY_MS = 3_600_000;
export const MAX_VALUE = 1e18;
/**
 * A declaration carries at most this many command checks and problems: the agent declares the first
 * 1000 checks of its host and says so among the problems (a longer list would refuse the declaration).
 */
export const MAX_DECLARED_CHECKS = 1000;
export const MAX_DECLARED_PROBLEMS = 100;

/**
 * What one request of frames may carry at most, so that no request holds the server's single writer
 * long (docs/hosts.md "Limits and errors"): each well above what an agent sends in one (a batch per
 * sample: one sample, the runs and log lines since the last, a declaration at start and every hour;
 * its outbox flushes early past 1 MiB and splits bodies by these too).
 */
export const REQUEST_LIMITS = {
  /** An hour of samples (240) and more. */
  samples: 400,
  /**
   * Containers and units over all samples: as many as one sample may hold (5,000 and 10,000, what the
   * agent reads at most), the costliest part of a request (~0.7 s of the writer at this bound).
   */
  sampleItems: 15_000,
  /** Runs: 1,000 checks at the shortest interval (10 s) make 1,500 in 15 s. */
  runs: 5_000,
  /** Log lines: as many as the server keeps per host; the agent keeps 1,000. */
  logLines: 10_000,
  /** Declarations (of at most 1,000 checks each): the agent declares at start, on connecting and hourly. */
  declares: 4,
} as const;
export type RequestLimit = keyof typeof REQUEST_LIMITS;

/** What each limit counts, for the 413 that names it. */
export const requestLimitNames: Record<RequestLimit, string> = {
  samples: 'sample frames',
  sampleItems: 'containers and units over all samples',
  runs: 'run frames',
  logLines: 'log lines',
  declares: 'declare frames',
};

/**
 * The first of REQUEST_LIMITS that `frames` exceed, or null. Reads frames as sent (unchecked JSON
 * objects or typed frames alike), so the server can count before it parses a frame.
 */
export function exceededLimit(frames: readonly { kind: unknown }[]): RequestLimit | null {
  const counts: Record<RequestLimit, number> = {
    samples: 0,
    sampleItems: 0,
    runs: 0,
    logLines: 0,
    declares: 0,
  };
  const length = (value: unknown) => (Array.isArray(value) ? value.length : 0);
  for (const frame of frames) {
    const f = frame as Record<string, unknown>;
    if (f.kind === 'sample') {
      counts.samples++;
      counts.sampleItems += length(f.containers) + length(f.units);
    } else if (f.kind === 'run') counts.runs++;
    else if (f.kind === 'log') counts.logLines += length(f.lines);
    else if (f.kind === 'declare') counts.declares++;
  }
  for (const limit of Object.keys(REQUEST_LIMITS) as RequestLimit[])
    if (counts[limit] > REQUEST_LIMITS[limit]) return limit;
  return null;
}

/** The poll waits at most this long for a change before it answers the same assignment again. */
export const POLL_WAIT_MS = 25_000;

export const containerStates = [
  'created',
  'running',
  'paused',
  'restarting',
  'removing',
  'exited',
  'dead',
] as const;

/** A container's health (its health check's status); none: null. */
export const containerHealths = ['starting', 'healthy', 'unhealthy'] as const;
export type ContainerHealth = (typeof containerHealths)[number];

export const unitStates = [
  'active',
  'reloading',
  'inactive',
  'failed',
  'activating',
  'deactivating',
] as const;
