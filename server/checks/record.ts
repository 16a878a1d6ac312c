import type { CheckDefinition, CommandDefinition } from '../../protocol/check.ts';
import { type LiveKey, liveKeys } from '../../protocol/live.ts';
import type { RunOutcome } from '../../runners/run.ts';
import type { CheckTransition, DomainEvent } from '../events.ts';
import { notFound } from '../problem.ts';
import type { Refuse } from '../store/ingest.ts';
import type { Tx } from '../store/writer.ts';
import { observeExpiry } from './expiry.ts';
import {
  afterMissed,
  expectedAfter,
  type HeartbeatTimes,
  heartbeatDeadline,
  missedDetail,
} from './heartbeats.ts';
import { type RunWrite, writeRun } from './runs.ts';
import { applyHeartbeat, applyRun, applyUnknown, type CheckStatus, type Transition } from './state.ts';
import type { Change, CheckRecord } from './store.ts';

/**
 * What happened to a check, on its way to storage. The state machine runs when it is written.
 * `version` is the definition the result belongs to: a result of a definition changed meanwhile is
 * dropped (a new target must not inherit the old one's failures or certificate).
 */
export type CheckResult =
  /** A run: the server's scheduler or an agent. */
  | { type: 'run'; checkId: string; ts: number; outcome: RunOutcome; version?: number }
  /** A heartbeat ping: success, failure or start. */
  | {
      type: 'ping';
      checkId: string;
      ts: number;
      ping: 'success' | 'fail' | 'start';
      detail: string;
      latencyMs: number | null;
    }
  /** A heartbeat's deadline passed (late, or started without finishing). */
  | { type: 'missed'; checkId: string; ts: number; version: number }
  /** The check's agent went silent. */
  | { type: 'unknown'; checkId: string; ts: number; detail: string }
  /** The stored record catches up with memory (a changed heartbeat's next expected time). */
  | { type: 'record'; checkId: string; ts: number };

/** A check as the engine holds it: the stored record (state is newest here) and its definition. */
export type Entry = {
  rec: CheckRecord;
  /** A command check's definition for host-defined checks: the server never runs those. */
  def: CheckDefinition | CommandDefinition;
  version: number;
  running: boolean;
  hb: HeartbeatTimes | null;
};

export type RecordContext = {
  entry(id: string): Entry | undefined;
  /** Hands the transitions to the transactional subscribers (incidents, notifications). */
  dispatch(tx: Tx, events: DomainEvent[]): void;
  /** Schedules a heartbeat's next deadline once its new times are committed. */
  scheduleDeadline(entry: Entry): void;
  /** Counts a stored run (after commit). */
  onRun(kind: string, status: string): void;
};

/**
 * Applies a batch of results inside one writer job: the state machine on each check's committed state,
 * the rows of runs, changes and new states, and the domain events of the transitions, all in the same
 * transaction. In-memory state changes are undone if the job rolls back; live-update keys, heartbeat
 * deadlines and run counts wait for the commit. A result for a check that is gone is refused (a ping
 * then answers 404, not 200). Returns how many results were stored.
 */
export function applyResults(ctx: RecordContext, tx: Tx, results: CheckResult[], refuse: Refuse): number {
  let stored = 0;
  const events: CheckTransition[] = [];
  const touched = new Set<Entry>();
  const keys = new Set<LiveKey>();
  const runs: { kind: string; status: string }[] = [];
  results.forEach((result, i) => {
    const entry = ctx.entry(result.checkId);
    if (!entry) {
      refuse(i, notFound('the check no longer exists'));
      return;
    }
    if ('version' in result && result.version !== undefined && result.version !== entry.version) return;
    if (!touched.has(entry)) {
      touched.add(entry);
      const before = { rec: snapshot(entry.rec), hb: entry.hb && { ...entry.hb } };
      tx.onRollback(() => {
        Object.assign(entry.rec, before.rec);
        entry.hb = before.hb;
      });
    }
    const applied = applyOne(entry, result);
    if (!applied) {
      if (result.type === 'ping') refuse(i, notFound('this check takes no pings'));
      return;
    }
    // Written at once: a check deleted earlier in this transaction has no row, and gets nothing.
    if (!writeRun(tx.db, applied.write)) {
      refuse(i, notFound('the check no longer exists'));
      return;
    }
    keys.add(liveKeys.service(entry.rec.service));
    if (applied.transition) {
      keys.add(liveKeys.overview);
      events.push(transitionEvent(entry.rec, applied.transition, result.ts, applied.detail));
    }
    if (applied.write.run) runs.push({ kind: entry.rec.kind, status: applied.write.run.status });
    stored++;
  });
  if (touched.size === 0) return stored;
  ctx.dispatch(tx, events);
  tx.invalidate(...keys);
  tx.afterCommit(() => {
    for (const entry of touched)
      if (entry.hb && ctx.entry(entry.rec.id) === entry) ctx.scheduleDeadline(entry);
    for (const run of runs) ctx.onRun(run.kind, run.status);
  });
  return stored;
}

type Applied = { write: RunWrite; transition: Transition | null; detail: string };

function applyOne(entry: Entry, result: CheckResult): Applied | null {
  const { rec } = entry;
  switch (result.type) {
    case 'run':
      return applyOutcome(entry, result.outcome, result.ts);
    case 'ping': {
      if (!entry.hb) return null;
      if (result.ping === 'start') {
        rec.startedAt = result.ts;
        entry.hb = { ...entry.hb, startedAt: result.ts };
        return { write: { record: rec, run: null, changes: [] }, transition: null, detail: '' };
      }
      const latencyMs = result.latencyMs ?? (rec.startedAt !== null ? result.ts - rec.startedAt : null);
      rec.lastPingAt = result.ts;
      rec.startedAt = null;
      setTimes(entry, { expectedAt: expectedAfter(entry.def, result.ts), startedAt: null });
      const status = result.ping === 'success' ? 'up' : 'down';
      return applyOutcome(entry, { status, latencyMs, detail: result.detail }, result.ts);
    }
    case 'missed': {
      const hb = entry.hb;
      if (!hb) return null;
      const { at, reason } = heartbeatDeadline(entry.def, hb);
      // A ping written before this miss moved the deadline: nothing was missed.
      if (at > result.ts) return null;
      const detail = missedDetail(entry.def, hb, reason, rec.lastPingAt);
      setTimes(entry, afterMissed(entry.def, hb, reason, result.ts));
      rec.startedAt = entry.hb!.startedAt;
      return applyOutcome(entry, { status: 'down', latencyMs: null, detail }, result.ts);
    }
    case 'unknown': {
      // The check says why it is unknown (its agent is silent, or too old to run it), once.
      if (rec.state.status === 'unknown' && rec.lastDetail === result.detail) return null;
      rec.lastDetail = result.detail;
      if (rec.state.status === 'unknown') {
        return { write: { record: rec, run: null, changes: [] }, transition: null, detail: result.detail };
      }
      const { state, transition } = applyUnknown(rec.state, result.ts);
      rec.state = state;
      const changes: Change[] = transition
        ? [
            {
              checkId: rec.id,
              service: rec.service,
              ts: result.ts,
              status: 'unknown',
              title: 'unknown',
              detail: result.detail,
            },
          ]
        : [];
      return { write: { record: rec, run: null, changes }, transition, detail: result.detail };
    }
    case 'record':
      return { write: { record: rec, run: null, changes: [] }, transition: null, detail: '' };
  }
}

function setTimes(entry: Entry, times: HeartbeatTimes): void {
  entry.hb = times;
  entry.rec.expectedAt = times.expectedAt;
}

function applyOutcome(entry: Entry, outcome: RunOutcome, ts: number): Applied {
  const { rec } = entry;
  const apply = entry.hb ? applyHeartbeat : applyRun;
  const { state, transition } = apply(rec.state, outcome.status, ts);
  rec.state = state;
  rec.lastRunAt = ts;
  rec.lastLatencyMs = outcome.latencyMs;
  rec.lastDetail = outcome.detail;
  if (outcome.value !== undefined) rec.lastValue = outcome.value;
  const changes: Change[] = [];
  const change = (status: CheckStatus | null, title: string, detail: string, expires?: number) =>
    changes.push({
      checkId: rec.id,
      service: rec.service,
      ts,
      status,
      title,
      detail,
      expires: expires ?? null,
    });
  if (transition) change(transition.to, titleOf(transition), outcome.detail);
  if (outcome.expiry) observeExpiry(rec, outcome.expiry, ts, change);
  const run = {
    checkId: rec.id,
    ts,
    status: outcome.status,
    latencyMs: outcome.latencyMs,
    detail: outcome.detail,
    value: outcome.value ?? null,
  };
  return { write: { record: rec, run, changes }, transition, detail: outcome.detail };
}

function transitionEvent(rec: CheckRecord, t: Transition, ts: number, detail: string): CheckTransition {
  return {
    type: 'check.transition',
    checkId: rec.id,
    name: rec.name,
    service: rec.service,
    kind: rec.kind,
    host: rec.body.from ?? null,
    from: t.from,
    to: t.to,
    // Down to unknown (an agent went silent) is no recovery: that comes with the later unknown → up.
    recovered: t.recovered === true || (t.from === 'down' && t.to !== 'down' && t.to !== 'unknown'),
    ts,
    detail,
  };
}

function titleOf(t: Transition): string {
  if ((t.from === 'down' || t.recovered) && t.to !== 'down') return `recovered: ${t.to}`;
  return t.to;
}

/** A copy of a record that later changes in memory do not reach. */
function snapshot(rec: CheckRecord): CheckRecord {
  return { ...rec, state: { ...rec.state }, expiry: rec.expiry ? { ...rec.expiry } : null };
}
