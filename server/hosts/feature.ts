import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { createAgentGate } from './agent-auth.ts';
import { registerAgentFile } from './agent-file.ts';
import { applyFrames, type FramesItem, framesWeight } from './apply.ts';
import { createAssignments } from './assignment.ts';
import { hostClocks } from './clock-ahead.ts';
import type { DecodeBudget } from './decode.ts';
import { MAX_DECODING_BYTES, registerFrames } from './frames.ts';
import { createHousekeeping } from './housekeeping.ts';
import { type Polls, registerPoll } from './poll.ts';
import { registerHostRoutes } from './routes.ts';
import { createSilenceWatch } from './silence.ts';
import { createStaleWatch } from './stale.ts';

/** Requests of frames waiting for storage at most (about one per agent); beyond, 503. */
const MAX_WAITING_BATCHES = 4000;

export type HostsOptions = {
  /** Requests of frames waiting for storage at most (default 4,000). */
  maxWaitingBatches?: number;
  /** Bytes of frames in flight at most, as sent and as inflated (default `MAX_DECODING_BYTES`, 64 MiB). */
  maxDecodingBytes?: number;
  /**
   * The sampling interval the poll tells agents (`settings.sampleEveryMs`) instead of SAMPLE_EVERY_MS
   * (15 s): tests with a real agent sample every second. Production never sets it.
   */
  sampleEveryMs?: number;
  /** The agent file served and compared with (default agent/dist/mon-agent.mjs): tests build their own. */
  agentFile?: string;
};

/**
 * A writer job takes at most 32 requests of frames, and fewer when they weigh more than 1,000 rows
 * (`framesWeight`): about 10 to 25 ms of the writer, whether the hosts run 15 containers and units
 * (32 batches, ~12 ms) or 250 (4 batches, ~20 ms), so API reads and heartbeat pings wait little.
 */
const FRAMES_PER_JOB = 32;
const FRAMES_JOB_WEIGHT = 1_000;

/**
 * Hosts and their agents (docs/hosts.md, docs/agent.md): the agent's routes (frames, poll, the agent
 * file), the host routes of the JSON API, the silence and stale-run watches and the hourly pruning.
 */
export function createHosts(deps: Deps, engine: CheckEngine, options: HostsOptions = {}) {
  const maxWaiting = options.maxWaitingBatches ?? MAX_WAITING_BATCHES;
  const assignments = createAssignments(deps, engine, options);
  const silence = createSilenceWatch({ deps, engine, checksOf: assignments.checksOf });
  const stale = createStaleWatch({
    deps,
    engine,
    checksOf: assignments.checksOf,
    connected: silence.connected,
  });
  const seen = (host: string, at: number, ran: readonly string[]) => {
    silence.seen(host, at);
    stale.seen(host, at, ran);
  };
  const housekeeping = createHousekeeping(deps);
  const gate = createAgentGate(deps);
  const clocks = hostClocks(deps);
  const frames = deps.store.ingestQueue<FramesItem>({
    maxAcknowledged: maxWaiting,
    maxBatch: FRAMES_PER_JOB,
    weigh: framesWeight,
    maxWeight: FRAMES_JOB_WEIGHT,
    onUnavailable: () => deps.metrics.ingestRejected.inc({ reason: 'queue_full' }),
    apply: (tx, items, refuse) => applyFrames({ deps, engine, seen }, tx, items, refuse),
  });
  let polls: Polls | null = null;
  let budget: DecodeBudget | null = null;
  const feature: Feature = {
    name: 'hosts',
    routes(app) {
      budget = registerFrames(app, deps, gate, frames, clocks, {
        maxWaiting,
        maxDecodingBytes: options.maxDecodingBytes ?? MAX_DECODING_BYTES,
      });
      polls = registerPoll(app, deps, engine, assignments, gate, clocks);
      const agentFile = registerAgentFile(
        app,
        deps,
        options.agentFile === undefined ? {} : { file: options.agentFile },
      );
      registerHostRoutes(app, deps, engine, clocks, agentFile, (host) => {
        silence.forget(host);
        polls?.revoked(host);
        clocks.forget(host);
        void housekeeping.purgeRemoved();
      });
    },
    start() {
      silence.start();
      stale.start();
      housekeeping.start();
    },
    async stop() {
      polls?.close();
      housekeeping.stop();
      silence.stop();
      stale.stop();
      gate.stop();
      await frames.close();
    },
  };
  return {
    feature,
    /** Bytes of frames in flight, as sent and as inflated (tests). */
    decodingBytes: () => budget?.used ?? 0,
    /** Requests of frames waiting for storage (tests). */
    framesWaiting: () => frames.size,
    /** Whether a poll of `host` waits for a change (tests). */
    pollWaiting: (host: string) => polls?.waiting(host) ?? false,
    /** Resolves once the pruning under way (hourly, or of a removed host), if any, is done (tests). */
    pruned: () => housekeeping.idle(),
  };
}
