import type { CheckDefinition } from '../protocol/check.ts';
import {
  expandReferences,
  notListed,
  notSet,
  referencedNames,
  unlistedReference,
} from '../protocol/env-refs.ts';
import { headerValueProblem } from '../protocol/headers.ts';
import { targetProblem } from '../protocol/targets.ts';
import type { RunContext, Runner, RunOutcome } from './run.ts';

/** Small pieces every runner uses. */

const DAY_MS = 86_400_000;

export function down(detail: string, latencyMs: number | null = null): RunOutcome {
  return { status: 'down', latencyMs, detail };
}

export function timedOut(check: CheckDefinition): string {
  return `timed out after ${check.timeoutMs} ms`;
}

/**
 * Fills in the `${NAME}` references of `text` (a target or a header value, `where` says which) from the
 * server's environment. A variable that is not set, or one a check of the panel or the API may not use
 * (`ctx.allowedEnv`, checked again at each run: the list may have shrunk since the check was saved), is
 * a down outcome naming the variable, never a value.
 */
function fill(text: string, ctx: RunContext, where: string): { value: string } | { outcome: RunOutcome } {
  const unlisted = ctx.allowedEnv ? unlistedReference(text, ctx.allowedEnv) : null;
  if (unlisted !== null) return { outcome: down(`${notListed(unlisted)} (used in ${where})`) };
  const { value, missing } = expandReferences(text, ctx.env);
  if (missing.length > 0) return { outcome: down(`${notSet(missing[0]!)} (used in ${where})`) };
  return { value };
}

/** `${NAME}, ${OTHER}`: the references of `text`, to say what was filled in without the values. */
function namesIn(text: string): string {
  return [...new Set(referencedNames(text))].map((name) => `\${${name}}`).join(', ');
}

/**
 * The check's target with its references filled in. The stored check keeps the reference, so reads
 * never show the value. A filled-in target that is not valid for the kind is a down outcome naming the
 * variables, never their values.
 */
export function resolveTarget(
  check: CheckDefinition,
  ctx: RunContext,
): { target: string } | { outcome: RunOutcome } {
  const written = check.target ?? '';
  const filled = fill(written, ctx, 'the target');
  if ('outcome' in filled) return filled;
  if (filled.value === written) return { target: written };
  const problem = targetProblem(check.kind, filled.value.trim());
  if (problem) return { outcome: down(`target with ${namesIn(written)} filled in: ${problem}`) };
  return { target: filled.value.trim() };
}

/** The check's request headers with their references filled in, each value checked as the API checks it. */
export function resolveHeaders(
  check: CheckDefinition,
  ctx: RunContext,
): { headers: Record<string, string> } | { outcome: RunOutcome } {
  const headers: Record<string, string> = {};
  for (const [name, written] of Object.entries(check.headers)) {
    const filled = fill(written, ctx, `header ${name}`);
    if ('outcome' in filled) return filled;
    const problem = filled.value === written ? null : headerValueProblem(filled.value);
    if (problem) return { outcome: down(`header ${name} with ${namesIn(written)} filled in: ${problem}`) };
    headers[name] = filled.value;
  }
  return { headers };
}

/** The worse of two statuses: down > degraded > up. */
export function worst(a: RunOutcome['status'], b: RunOutcome['status']): RunOutcome['status'] {
  const rank = { up: 0, degraded: 1, down: 2 } as const;
  return rank[a] >= rank[b] ? a : b;
}

/**
 * Wraps a runner so that an unexpected exception still becomes a down outcome, and so that it can never
 * hang: the signal the runner sees aborts with the engine's signal or at the check's own timeout. One
 * timer, cleared when the run ends (AbortSignal.any with AbortSignal.timeout kept each run's timer and
 * signals alive for the whole timeout, ~3 KB of garbage per run promoted out of the young generation).
 */
export function safe(run: Runner): Runner {
  return async (check, ctx) => {
    const deadline = new AbortController();
    const abort = () => deadline.abort(ctx.signal.reason);
    if (ctx.signal.aborted) abort();
    else ctx.signal.addEventListener('abort', abort, { once: true });
    const timer = setTimeout(() => deadline.abort(new Error('timeout')), check.timeoutMs);
    try {
      return await run(check, { ...ctx, signal: deadline.signal });
    } catch (error) {
      if (deadline.signal.aborted) return down(timedOut(check));
      return down(`internal error: ${(error as Error)?.message ?? String(error)}`);
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', abort);
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

export { DAY_MS };
