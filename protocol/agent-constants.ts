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
export type AgentCapability = (typeof agentCapabilities)[number];

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

export const unitStates = [
  'active',
  'reloading',
  'inactive',
  'failed',
  'activating',
  'deactivating',
] as const;
