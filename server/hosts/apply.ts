import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Refuse } from '../store/ingest.ts';
import { int, mapper, nullable, one } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { tokenNotValid } from './agent-auth.ts';
import { rememberBatch } from './batches.ts';
import { applyDeclaration } from './declarations.ts';
import type { DecodedFrames } from './decode.ts';
import { insertLogLines } from './logs.ts';
import { type Membership, membership } from './membership.ts';
import { recordAgentRuns } from './runs.ts';
import { applySamples, type JobContext } from './samples.ts';
import { agentAlert, spanText } from './silence.ts';

/** One request's frames on their way to storage. */
export type FramesItem = {
  host: string;
  /** When the request arrived: the host's `last_seen`. */
  receivedAt: number;
  frames: Omit<DecodedFrames, 'unknown'>;
  /** Set by the job that stores it. */
  outcome: FramesOutcome | null;
};

/**
 * About the rows a request's frames write: a sample one and one per container and unit (their
 * rollups are most of its cost), a log line or any other frame one. Bounds a writer job (feature.ts).
 */
export function framesWeight(item: FramesItem): number {
  const { hello, sample, declare, log, run } = item.frames;
  let weight = hello.length + declare.length + run.length;
  for (const s of sample) weight += 1 + (s.containers?.length ?? 0) + (s.units?.length ?? 0);
  for (const frame of log) weight += frame.lines.length;
  return weight;
}

export type FramesOutcome = {
  /** The batch was stored before (its id is known): nothing of it was stored again. */
  known: boolean;
  /** Runs left out: stale (sent twice, older than their check's last result or definition). */
  staleRuns: number;
  /** Runs of checks that are not this host's. */
  foreignRuns: string[];
};

export type ApplyContext = {
  deps: Deps;
  engine: CheckEngine;
  /** A host's frame is committed (the silence watch restarts its count). */
  seen(host: string, at: number): void;
  /** The newest frame of a host's batch was dated this far ahead of its arrival (after commit). */
  clockAhead(host: string, aheadMs: number): void;
};

const hostState = mapper({ silentSince: nullable(int), lastSeen: nullable(int) });

/**
 * Applies a batch of requests in one writer job (docs/architecture.md "The path of an agent frame"):
 * per request, the host's `last_seen` (ending a silence), its batch id (a batch stored before stops
 * here), then its frames by kind: `hello` (what the agent is), `declare` (its command checks), samples
 * oldest first, `log` lines, and runs through the check engine. Host alerts, the agent's recovery
 * included, are dispatched as domain events in the same job.
 */
export function applyFrames(ctx: ApplyContext, tx: Tx, items: FramesItem[], refuse: Refuse): void {
  const { db } = tx;
  const config = ctx.deps.config.current();
  let built: Membership | null = null;
  const job: JobContext = {
    tx,
    config,
    membership: () => {
      built ??= membership(db, config);
      return built;
    },
    events: [],
  };
  const seen: { host: string; at: number; ahead: number }[] = [];
  items.forEach((item, i) => {
    const { host, receivedAt, frames } = item;
    const state = one(db, 'SELECT silent_since, last_seen FROM hosts WHERE name = ?', hostState, host);
    if (!state) {
      refuse(i, tokenNotValid());
      return;
    }
    const ahead = Math.max(0, newestTs(frames) - receivedAt);
    statement(
      db,
      `UPDATE hosts SET last_seen = max(coalesce(last_seen, 0), ?), first_seen = coalesce(first_seen, ?),
         silent_since = NULL, clock_ahead_ms = ? WHERE name = ?`,
    ).run(receivedAt, receivedAt, ahead, host);
    if (state.silentSince !== null) {
      const silentFor = spanText(receivedAt - (state.lastSeen ?? state.silentSince));
      job.events.push(
        agentAlert(host, 'recovered', receivedAt, `a frame arrived after ${silentFor} without one`),
      );
    }
    seen.push({ host, at: receivedAt, ahead });
    if (frames.batch !== null && !rememberBatch(db, host, frames.batch)) {
      item.outcome = { known: true, staleRuns: 0, foreignRuns: [] };
      return;
    }
    const hello = frames.hello.at(-1);
    if (hello) {
      const { kind: _kind, ts: _ts, ...agent } = hello;
      statement(db, 'UPDATE hosts SET agent = ? WHERE name = ?').run(JSON.stringify(agent), host);
    }
    for (const frame of frames.declare) {
      applyDeclaration({ engine: ctx.engine, config: ctx.deps.config }, tx, host, frame);
    }
    applySamples(job, host, frames.sample);
    insertLogLines(db, host, frames.log);
    const runs = recordAgentRuns(ctx.engine, tx, host, frames.run);
    item.outcome = { known: false, staleRuns: runs.stale, foreignRuns: runs.foreign };
  });
  ctx.deps.events.dispatch(tx, job.events, ctx.deps.clock.now());
  tx.afterCommit(() => {
    for (const { host, at, ahead } of seen) {
      ctx.seen(host, at);
      if (ahead > MAX_AHEAD_MS) ctx.clockAhead(host, ahead);
    }
  });
}

/** The time of the newest frame of a batch (log lines count by their own times). */
function newestTs(frames: FramesItem['frames']): number {
  let newest = Number.NEGATIVE_INFINITY;
  for (const list of [frames.hello, frames.sample, frames.declare, frames.run]) {
    for (const frame of list) if (frame.ts > newest) newest = frame.ts;
  }
  for (const frame of frames.log) for (const line of frame.lines) if (line.ts > newest) newest = line.ts;
  return newest;
}

const HOUR_MS = 3_600_000;
/**
 * A batch whose newest frame is dated this far ahead of its arrival comes from a host whose clock is
 * wrong: it is stored as dated all the same, and the log says so.
 */
export const MAX_AHEAD_MS = 5 * 60_000;

/**
 * Says in the log that a host's clock is ahead of the server's (its frames are stored as dated, so its
 * charts run ahead and later samples may look older), at most once an hour per host.
 */
export function clockWarnings(deps: Deps): (host: string, aheadMs: number) => void {
  const warned = new Map<string, number>();
  return (host, aheadMs) => {
    const now = deps.clock.now();
    const last = warned.get(host);
    if (last !== undefined && now - last < HOUR_MS) return;
    warned.set(host, now);
    deps.log.warn(`the clock of ${host} is ${spanText(aheadMs)} ahead of the server's`, { host, aheadMs });
  };
}
