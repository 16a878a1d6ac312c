import type { CheckDefinition } from '../../../protocol/check.ts';
import type { RunContext, Runner, RunOutcome } from '../run.ts';

/** Small pieces every runner uses. */

const DAY_MS = 86_400_000;

export function down(detail: string, latencyMs: number | null = null): RunOutcome {
  return { status: 'down', latencyMs, detail };
}

export function timedOut(check: CheckDefinition): string {
  return `timed out after ${check.timeoutMs} ms`;
}

/** The engine's signal, plus the check's own timeout so that a runner can never hang. */
export function runSignal(check: CheckDefinition, ctx: RunContext): AbortSignal {
  return AbortSignal.any([ctx.signal, AbortSignal.timeout(check.timeoutMs)]);
}

/** The worse of two statuses: down > degraded > up. */
export function worst(a: RunOutcome['status'], b: RunOutcome['status']): RunOutcome['status'] {
  const rank = { up: 0, degraded: 1, down: 2 } as const;
  return rank[a] >= rank[b] ? a : b;
}

/** Wraps a runner so that an unexpected exception still becomes a down outcome. */
export function safe(run: Runner): Runner {
  return async (check, ctx) => {
    try {
      return await run(check, ctx);
    } catch (error) {
      if (ctx.signal.aborted) return down(timedOut(check));
      return down(`internal error: ${(error as Error)?.message ?? String(error)}`);
    }
  };
}

const networkErrors: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed (temporary)',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed',
};

/** One line for a network error: "connection refused" rather than "connect ECONNREFUSED 127.0.0.1:1". */
export function networkDetail(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const code = typeof e?.code === 'string' ? e.code : '';
  return networkErrors[code] ?? e?.message ?? String(error);
}

/** "in 5 days", "today", "3 days ago": for expiry details. */
export function daysFromNow(expires: number, now: number): string {
  const days = Math.floor((expires - now) / DAY_MS);
  if (expires <= now) {
    const ago = Math.floor((now - expires) / DAY_MS);
    return ago === 0 ? 'today' : `${ago} day${ago === 1 ? '' : 's'} ago`;
  }
  return days === 0 ? 'within a day' : `in ${days} day${days === 1 ? '' : 's'}`;
}

export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export { DAY_MS };
