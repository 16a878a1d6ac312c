import type { RunStatus } from '../../protocol/reads.ts';

/**
 * The check state machine (SPEC "States and transitions"), pure: the same inputs give the same outputs,
 * time comes in with each run. Down after two failed runs in a row; recovery after two successes in a
 * row and 3 minutes since the first of them; degraded moves at once.
 */
export type CheckStatus = 'up' | 'down' | 'degraded' | 'unknown';

export type { RunStatus };

export type CheckState = {
  status: CheckStatus;
  /** When the check took its status; null before its first status change. */
  since: number | null;
  /**
   * Failed runs in a row. An unknown check that was down keeps FAILS_TO_DOWN here: its recovery is still
   * pending (kept in the stored streak, so it survives a restart).
   */
  failStreak: number;
  okStreak: number;
  /** Time of the first success of the current success streak. */
  okSince: number | null;
};

export const RECOVERY_MS = 3 * 60_000;
export const FAILS_TO_DOWN = 2;
export const OKS_TO_RECOVER = 2;

export const initialState = (): CheckState => ({
  status: 'unknown',
  since: null,
  failStreak: 0,
  okStreak: 0,
  okSince: null,
});

/** `recovered`: the end of a recovery that began down (possibly through unknown). */
export type Transition = { from: CheckStatus; to: CheckStatus; recovered?: true };

/** Applies one run of a scheduled check (server or agent). */
export function applyRun(
  state: CheckState,
  run: RunStatus,
  ts: number,
): { state: CheckState; transition: Transition | null } {
  const next: CheckState = { ...state };
  if (recoveryPending(state)) return applyPendingRecovery(state, run, ts);
  const status = state.status;
  if (run === 'down') {
    next.failStreak = state.failStreak + 1;
    next.okStreak = 0;
    next.okSince = null;
    const to = status !== 'down' && next.failStreak >= FAILS_TO_DOWN ? 'down' : status;
    return settle(state, next, to, ts);
  }
  next.failStreak = 0;
  next.okStreak = state.okStreak + 1;
  next.okSince = state.okSince ?? ts;
  if (status === 'down') {
    const recovered = next.okStreak >= OKS_TO_RECOVER && ts - next.okSince >= RECOVERY_MS;
    return settle(state, next, recovered ? run : 'down', ts);
  }
  return settle(state, next, run, ts);
}

/**
 * A check that was down before its agent went silent stays unknown while it recovers: it takes the
 * same two successes and 3 minutes as from down (then the transition is marked `recovered`); a
 * failure makes it down again. The pending mark (failStreak at FAILS_TO_DOWN) stays until then.
 */
function applyPendingRecovery(
  state: CheckState,
  run: RunStatus,
  ts: number,
): { state: CheckState; transition: Transition | null } {
  if (run === 'down') {
    const next = { ...state, failStreak: state.failStreak + 1, okStreak: 0, okSince: null };
    return settle(state, next, 'down', ts);
  }
  const next = { ...state, okStreak: state.okStreak + 1, okSince: state.okSince ?? ts };
  if (next.okStreak < OKS_TO_RECOVER || ts - next.okSince < RECOVERY_MS)
    return settle(state, next, 'unknown', ts);
  const done = settle(state, { ...next, failStreak: 0 }, run, ts);
  return { state: done.state, transition: done.transition && { ...done.transition, recovered: true } };
}

/** Applies a heartbeat event: a ping or a missed deadline acts at once, without the two-run rule. */
export function applyHeartbeat(
  state: CheckState,
  run: RunStatus,
  ts: number,
): { state: CheckState; transition: Transition | null } {
  const next: CheckState = {
    ...state,
    failStreak: run === 'down' ? state.failStreak + 1 : 0,
    okStreak: run === 'down' ? 0 : state.okStreak + 1,
    okSince: run === 'down' ? null : (state.okSince ?? ts),
  };
  return settle(state, next, run, ts);
}

/**
 * The check's agent went silent: the check is unknown until its next run. A check that was down (or
 * unknown with its recovery pending) keeps its recovery pending; a recovery streak starts over.
 */
export function applyUnknown(
  state: CheckState,
  ts: number,
): { state: CheckState; transition: Transition | null } {
  const wasDown = state.status === 'down' || recoveryPending(state);
  const next = { ...initialState(), since: state.since, failStreak: wasDown ? FAILS_TO_DOWN : 0 };
  return settle(state, next, 'unknown', ts);
}

/**
 * A down check (or an unknown one with its recovery pending) that has had successes since its last
 * failure: `since` is the first of them, `upAt` when it counts as up if its runs, every `everyMs`, keep
 * passing (the run that brings two successes and 3 minutes). Null otherwise.
 */
export function recovery(state: CheckState, everyMs: number): { since: number; upAt: number } | null {
  if (state.status !== 'down' && !recoveryPending(state)) return null;
  if (state.okStreak === 0 || state.okSince === null) return null;
  const runsAfterFirst = Math.max(OKS_TO_RECOVER - 1, Math.ceil(RECOVERY_MS / everyMs));
  return { since: state.okSince, upAt: state.okSince + runsAfterFirst * everyMs };
}

/** Unknown after down: two failures in a row make any other check down, so unknown never has them. */
function recoveryPending(state: CheckState): boolean {
  return state.status === 'unknown' && state.failStreak >= FAILS_TO_DOWN;
}

function settle(
  before: CheckState,
  next: CheckState,
  to: CheckStatus,
  ts: number,
): { state: CheckState; transition: Transition | null } {
  if (to === before.status) return { state: next, transition: null };
  return { state: { ...next, status: to, since: ts }, transition: { from: before.status, to } };
}
