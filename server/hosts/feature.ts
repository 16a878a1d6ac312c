import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { registerAgentFile } from './agent-file.ts';
import { applyFrames, type FramesItem } from './apply.ts';
import { createAssignments } from './assignment.ts';
import { registerFrames } from './frames.ts';
import { createHousekeeping } from './housekeeping.ts';
import type { HostsOptions } from './options.ts';
import { type Polls, registerPoll } from './poll.ts';
import { registerHostRoutes } from './routes.ts';
import { createSilenceWatch } from './silence.ts';

/** Requests of frames waiting for storage at most (about one per agent); beyond, 503. */
const MAX_WAITING_BATCHES = 4000;

/**
 * Hosts and their agents (docs/hosts.md, docs/agent.md): the agent's routes (frames, poll, the agent
 * file), the host routes of the JSON API, the silence watch and the hourly pruning.
 */
export function createHosts(deps: Deps, engine: CheckEngine, options: HostsOptions = {}) {
  const assignments = createAssignments(deps, engine, options);
  const silence = createSilenceWatch({ deps, engine, checksOf: assignments.checksOf });
  const housekeeping = createHousekeeping(deps);
  const frames = deps.store.ingestQueue<FramesItem>({
    maxAcknowledged: MAX_WAITING_BATCHES,
    onQueueFull: () => deps.metrics.ingestRejected.inc({ reason: 'queue_full' }),
    apply: (tx, items, refuse) => applyFrames({ deps, engine, seen: silence.seen }, tx, items, refuse),
  });
  let polls: Polls | null = null;
  const feature: Feature = {
    name: 'hosts',
    routes(app) {
      registerFrames(app, deps, engine, frames);
      polls = registerPoll(app, deps, engine, assignments);
      registerAgentFile(app, deps);
      registerHostRoutes(app, deps, engine);
    },
    start() {
      silence.start();
      housekeeping.start();
    },
    async stop() {
      polls?.close();
      housekeeping.stop();
      silence.stop();
      await frames.close();
    },
  };
  return { feature };
}
