import { spanText } from '../../protocol/durations.ts';
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
import { agentAlert } from './silence.ts';

/** One request's frames on their way to storage. */
export type FramesItem = {
  host: string;
  /** The token it came with: one revoked or replaced while it waited stores nothing (401). */
  tokenHash: string;
  /** When the request arrived: the host's `last_seen`. */
  receivedAt: number;
  /** How far ahead of `receivedAt` its newest frame was dated (clock-ahead.ts); frames beyond are left out. */
  aheadMs: number;
  /** The host's clock offset measured on this request (clock-ahead.ts), or null when the agent sent none. */
  offsetMs: number | null;
  frames: Omit<DecodedFrames, 'unknown' | 'invalid' | 'unknownItems'>;
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
  /**
   * A host's frame is committed (the silence watch restarts its count), with the checks it brought
   * runs of (the stale-run watch).
   */
  seen(host: string, at: number, ran: readonly string[]): void;
};

const hostState = mapper({ silentSince: nullable(int), lastSeen: nullable(int) });

/**
 * Applies a batch of requests in one writer job (docs/architecture.md "The path of an agent frame"):
 * per request, the host's `last_seen` (ending a silence), its batch id (a batch stored before stops
 * here), then its frames by kind: `hello` (what the agent is), the newest `declare` (its command
 * checks; each declaration replaces the one before, so older ones of the same request change nothing), samples
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
  const seen: { host: string; at: number; ran: readonly string[] }[] = [];
  items.forEach((item, i) => {
    const { host, receivedAt, aheadMs: ahead, frames } = item;
    const state = one(
      db,
      'SELECT silent_since, last_seen FROM hosts WHERE name = ? AND token_hash = ?',
      hostState,
      host,
      item.tokenHash,
    );
    if (!state) {
      refuse(i, tokenNotValid());
      return;
    }
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
    const seenNow = { host, at: receivedAt, ran: [] as readonly string[] };
    seen.push(seenNow);
    if (frames.batch !== null && !rememberBatch(db, host, frames.batch)) {
      item.outcome = { known: true, staleRuns: 0, foreignRuns: [] };
      return;
    }
    const hello = frames.hello.at(-1);
    if (hello) {
      const { kind: _kind, ts: _ts, ...agent } = hello;
      statement(db, 'UPDATE hosts SET agent = ? WHERE name = ?').run(JSON.stringify(agent), host);
    }
    const declared = frames.declare.at(-1);
    if (declared) applyDeclaration({ engine: ctx.engine, config: ctx.deps.config }, tx, host, declared);
    applySamples(job, host, frames.sample);
    insertLogLines(db, host, frames.log);
    const runs = recordAgentRuns(ctx.engine, tx, host, frames.run, item.offsetMs);
    seenNow.ran = runs.ran;
    item.outcome = { known: false, staleRuns: runs.stale, foreignRuns: runs.foreign };
  });
  ctx.deps.events.dispatch(tx, job.events, ctx.deps.clock.now());
  tx.afterCommit(() => {
    for (const { host, at, ran } of seen) ctx.seen(host, at, ran);
  });
}
