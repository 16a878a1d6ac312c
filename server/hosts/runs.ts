import type { RunFrame } from '../../protocol/agent.ts';
import type { RunOutcome } from '../../runners/run.ts';
import type { CheckEngine, Entry } from '../checks/engine.ts';
import type { CheckResult } from '../checks/record.ts';
import type { Tx } from '../store/writer.ts';
import { certificateOnServerClock } from './cert-clock.ts';

/** What became of a batch's runs. */
export type RunsRecorded = {
  stored: number;
  /** Runs of checks that are not this host's: ids, for the log. */
  foreign: string[];
  /** Runs not newer than their check's last result, or older than its definition. */
  stale: number;
  /** The host's checks that runs came for, stored or not: its agent runs them (stale.ts). */
  ran: string[];
};

/**
 * Records a host's runs inside the writer job of its batch, judged there against the checks as they
 * stand. A run counts only for a check whose `from` names the host (a server check assigned to it, or
 * one of its command checks): any other is `foreign`, so that a host cannot report another's checks.
 * A run must be newer than its check's last result: one sent twice is not counted twice, and runs
 * the agent kept from before its silence cannot take the check back from `unknown` to an older
 * state. A run dated before the check's definition last changed belongs to the old one (a PUT that
 * moved the target) and is left out too. An http run's certificate is judged again on the server's
 * clock when the host's is off by `offsetMs` (cert-clock.ts).
 */
export function recordAgentRuns(
  engine: CheckEngine,
  tx: Tx,
  host: string,
  frames: RunFrame[],
  offsetMs: number | null = null,
): RunsRecorded {
  const results: CheckResult[] = [];
  const newest = new Map<string, number>();
  const foreign: string[] = [];
  const ran = new Set<string>();
  let stale = 0;
  for (const frame of [...frames].sort((a, b) => a.ts - b.ts)) {
    const entry = engine.get(frame.id);
    if (!entry || entry.def.from !== host) {
      foreign.push(frame.id);
      continue;
    }
    ran.add(frame.id);
    const after = newest.get(frame.id) ?? lastResultAt(entry);
    if (frame.ts <= after || frame.ts < entry.rec.updatedAt) {
      stale++;
      continue;
    }
    newest.set(frame.id, frame.ts);
    const outcome = certificateOnServerClock(outcomeOf(frame), entry.def, frame.ts, offsetMs);
    results.push({ type: 'run', checkId: frame.id, ts: frame.ts, outcome });
  }
  const stored = results.length > 0 ? engine.recordIn(tx, results) : 0;
  return { stored, foreign, stale: stale + results.length - stored, ran: [...ran] };
}

/** The time of a check's last result: its last run, or the change of state after it (an unknown). */
function lastResultAt(entry: Entry): number {
  const { lastRunAt, state } = entry.rec;
  return Math.max(lastRunAt ?? Number.NEGATIVE_INFINITY, state.since ?? Number.NEGATIVE_INFINITY);
}

function outcomeOf(frame: RunFrame): RunOutcome {
  return {
    status: frame.status,
    latencyMs: frame.latencyMs,
    detail: frame.detail,
    ...(frame.value !== undefined && { value: frame.value }),
    ...(frame.expiry !== undefined && { expiry: frame.expiry }),
  };
}
