import { HOUR, MINUTE, SECOND } from '../../protocol/durations.ts';
/**
 * When a failed notification is tried again, pure: seconds at first (a receiver restarting), then
 * minutes, then hours, until a day after the row was made; a permanent error stops at once.
 */

/** The wait after the 1st, 2nd, ... failed attempt; after the last, every 4 h. */
export const RETRY_STEPS_MS = [
  10 * SECOND,
  30 * SECOND,
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
] as const;

/** A notification not delivered within this long of being made is given up. */
export const GIVE_UP_AFTER_MS = 24 * HOUR;

/** A receiver's Retry-After is honoured within these bounds. */
export const RETRY_AFTER_MIN_MS = RETRY_STEPS_MS[0];
export const RETRY_AFTER_MAX_MS = 4 * HOUR;

export type Failure = { permanent: boolean; retryAfterMs?: number | undefined };

export type NextAttempt =
  | { retry: true; at: number }
  /** `permanent`: retrying cannot help; `expired`: the next attempt would come more than a day after. */
  | { retry: false; why: 'permanent' | 'expired' };

/**
 * After failed attempt number `attempt` (1 for the first) at `now` of a row made at `createdAt`: when
 * to try again, or why not.
 */
export function nextAttempt(failure: Failure, attempt: number, createdAt: number, now: number): NextAttempt {
  if (failure.permanent) return { retry: false, why: 'permanent' };
  const step = RETRY_STEPS_MS[Math.min(Math.max(attempt, 1), RETRY_STEPS_MS.length) - 1]!;
  const wait =
    failure.retryAfterMs === undefined
      ? step
      : Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, failure.retryAfterMs));
  const at = now + wait;
  return at > createdAt + GIVE_UP_AFTER_MS ? { retry: false, why: 'expired' } : { retry: true, at };
}
