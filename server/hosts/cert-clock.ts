import type { CheckDefinition, CommandDefinition } from '../../protocol/check.ts';
import type { RunStatus } from '../../protocol/reads.ts';
import { statusMatches } from '../../runners/assertions.ts';
import { certificateStatus } from '../../runners/http.ts';
import type { RunOutcome } from '../../runners/run.ts';
import { CLOCK_TOLERANCE_MS } from './clock-ahead.ts';

const rank: Record<RunStatus, number> = { up: 0, degraded: 1, down: 2 };
const worst = (a: RunStatus, b: RunStatus): RunStatus => (rank[a] >= rank[b] ? a : b);

/**
 * An http run of an agent whose clock is off (`offsetMs` past CLOCK_TOLERANCE_MS, measured from the
 * clock it sends) judged its certificate's expiry by the host's clock: a host a day ahead would turn
 * degraded a day early. The run carries the expiry, so the judgement is made again on the server's
 * clock, with the runner's own rule (`certificateStatus`): the note the agent added (the detail's last)
 * is replaced, and the status is what the run's other results and the certificate on the server's
 * clock make it. `ts` is the run's start on the server's clock; the runner judged after its latency.
 * Left as the agent said when the detail is not as the runner writes it (cut short), or when the
 * certificate was expired by the host's clock only and other assertions failed too (down or degraded
 * cannot be told apart then).
 */
export function certificateOnServerClock(
  outcome: RunOutcome,
  def: CheckDefinition | CommandDefinition,
  ts: number,
  offsetMs: number | null,
): RunOutcome {
  const { expiry } = outcome;
  if (offsetMs === null || Math.abs(offsetMs) <= CLOCK_TOLERANCE_MS) return outcome;
  if (def.kind !== 'http' || !expiry || expiry.kind !== 'certificate') return outcome;
  const judgedAt = ts + (outcome.latencyMs ?? 0);
  const agent = certificateStatus(expiry.expires, judgedAt + offsetMs);
  const server = certificateStatus(expiry.expires, judgedAt);
  if (agent.status === server.status && agent.note === server.note) return outcome;
  const suffix = agent.note ? `; ${agent.note}` : '';
  if (!outcome.detail.endsWith(suffix)) return outcome;
  const rest = outcome.detail.slice(0, outcome.detail.length - suffix.length);
  const detail = server.note ? `${rest}; ${server.note}` : rest;
  // The certificate on the server's clock is as bad or worse: it decides, or the rest does (exact).
  if (rank[server.status] >= rank[agent.status])
    return { ...outcome, status: worst(outcome.status, server.status), detail };
  const others = othersStatus(outcome.status, agent.status, rest, def);
  if (others === null) return outcome;
  return { ...outcome, status: worst(others, server.status), detail };
}

/**
 * The status of the run without its certificate, at least as far as the certificate on the server's
 * clock can matter: `status` is the worse of it and `byAgent`, the certificate by the host's clock.
 */
function othersStatus(
  status: RunStatus,
  byAgent: RunStatus,
  rest: string,
  def: CheckDefinition,
): RunStatus | null {
  if (rank[status] > rank[byAgent] || byAgent === 'up') return status;
  // Every failed assertion adds a note after the status line; a 2xx required and missed adds none.
  const notes = rest.includes('; ');
  if (byAgent === 'degraded') return notes ? 'degraded' : 'up';
  if (notes) return null;
  const code = Number(/^\d{3}/.exec(rest)?.[0]);
  const twoRequired = !def.expect.some((a) => a.status !== undefined);
  return twoRequired && !statusMatches('2xx', code) ? 'down' : 'up';
}
