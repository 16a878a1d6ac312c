import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { Problem } from '../problem.ts';
import type { Refuse } from '../store/ingest.ts';
import { int, mapper, nullable, one } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { applyDeclaration } from './declarations.ts';
import type { DecodedFrames } from './decode.ts';
import { insertLogLines } from './logs.ts';
import { type Membership, membership } from './membership.ts';
import { applySamples, type JobContext } from './samples.ts';
import { agentAlert, spanText } from './silence.ts';

/** One request's frames on their way to storage (runs go to the check engine instead). */
export type FramesItem = {
  host: string;
  /** When the request arrived: the host's `last_seen`. */
  receivedAt: number;
  frames: Omit<DecodedFrames, 'run' | 'unknown'>;
  /** Set by the job that stores it: frames left out because they were stored already. */
  again: number;
};

export type ApplyContext = {
  deps: Deps;
  engine: CheckEngine;
  /** A host's frame is committed (the silence watch restarts its count). */
  seen(host: string, at: number): void;
};

const hostState = mapper({ silentSince: nullable(int), lastSeen: nullable(int) });

/**
 * Applies a batch of requests in one writer job (docs/architecture.md "The path of an agent frame"):
 * per request, the host's `last_seen` (ending a silence), then its frames by kind: `hello` (what the
 * agent is), `declare` (its command checks), samples oldest first, `log` lines. Host alerts, the
 * agent's recovery included, are dispatched as domain events in the same job.
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
  const seen: FramesItem[] = [];
  items.forEach((item, i) => {
    const { host, receivedAt, frames } = item;
    const state = one(db, 'SELECT silent_since, last_seen FROM hosts WHERE name = ?', hostState, host);
    if (!state) {
      refuse(i, new Problem(401, 'sign-in required', 'the host token is not valid'));
      return;
    }
    statement(
      db,
      `UPDATE hosts SET last_seen = max(coalesce(last_seen, 0), ?), first_seen = coalesce(first_seen, ?),
         silent_since = NULL WHERE name = ?`,
    ).run(receivedAt, receivedAt, host);
    if (state.silentSince !== null) {
      const silentFor = spanText(receivedAt - (state.lastSeen ?? state.silentSince));
      job.events.push(
        agentAlert(host, 'recovered', receivedAt, `a frame arrived after ${silentFor} without one`),
      );
    }
    const hello = frames.hello.at(-1);
    if (hello) {
      const { kind: _kind, ts: _ts, ...agent } = hello;
      statement(db, 'UPDATE hosts SET agent = ? WHERE name = ?').run(JSON.stringify(agent), host);
    }
    for (const frame of frames.declare) {
      applyDeclaration({ engine: ctx.engine, config: ctx.deps.config }, tx, host, frame);
    }
    item.again = applySamples(job, host, frames.sample, receivedAt) + insertLogLines(db, host, frames.log);
    seen.push(item);
  });
  ctx.deps.events.dispatch(tx, job.events, ctx.deps.clock.now());
  tx.afterCommit(() => {
    for (const item of seen) ctx.seen(item.host, item.receivedAt);
  });
}
