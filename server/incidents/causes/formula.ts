import { DAY, HOUR, MINUTE } from '../../../protocol/durations.ts';
import { DOMAIN_DOWN_DAYS } from '../../../runners/domain.ts';
import type { Candidate, Relation } from './candidates.ts';

/**
 * The numbers of the likely-cause score (docs/incidents.md publishes them). A cause's score is the
 * product of four factors: how long before the start it happened (time), how it relates to the
 * incident (relation), what it is (kind) and what speaks against it (counter).
 */

/** How a state change's weight fades with its distance before the start. */
export type TimeScale = { full: number; half: number; window: number };

/** Deploys, changes and dependencies going down: full weight within 5 minutes, halving every 30, none beyond 3 hours. */
export const CHANGE_TIME: TimeScale = { full: 5 * MINUTE, half: 30 * MINUTE, window: 3 * HOUR };
/**
 * What happened on a host (a container killed, a unit failed, a threshold crossed, the agent silent)
 * shows within minutes: full weight within 5 minutes, halving every 15, none beyond 2 hours.
 */
export const HOST_TIME: TimeScale = { full: 5 * MINUTE, half: 15 * MINUTE, window: 2 * HOUR };
/** Expiries stay until renewed and domain checks run every 6 hours: full weight within a day, halving every day, none beyond 7. */
export const EXPIRY_TIME: TimeScale = { full: DAY, half: DAY, window: 7 * DAY };

export const RELATION_WEIGHT: Record<Relation, number> = {
  service: 1,
  host: 0.8,
  dependency: 0.7,
  none: 0.4,
};

/**
 * The kinds candidates are weighed as; a push is a change whose code is on its way, not yet live. What
 * happened on a host is weighed by the strongest of its events: a container killed for memory above
 * one restarted, a unit that failed above one restarted.
 */
export type WeightedKind =
  | 'dependency'
  | 'certificate'
  | 'domain'
  | 'deploy'
  | 'change'
  | 'push'
  | 'oom'
  | 'unit_failed'
  | 'silent'
  | 'threshold'
  | 'restart'
  | 'unit_restart';

export const KIND_WEIGHT: Record<WeightedKind, number> = {
  dependency: 1,
  certificate: 1,
  domain: 1,
  deploy: 0.8,
  change: 0.6,
  push: 0.25,
  oom: 0.9,
  unit_failed: 0.9,
  silent: 0.8,
  threshold: 0.7,
  restart: 0.6,
  unit_restart: 0.5,
};

/** What each piece of counter-evidence multiplies the score by. */
export const COUNTER_WEIGHT = {
  /** A later deploy of the same service replaced it before the start. */
  replaced: 0.5,
  /** The same version ran on another service for an hour or more without it going down. */
  ranElsewhere: 0.5,
  /** The dependency came back before the start. */
  recovered: 0.4,
} as const;

/** Where the same version running elsewhere is looked for: deployed 1 hour to 7 days before the start. */
export const RAN_ELSEWHERE = { ranFor: HOUR, lookback: 7 * DAY } as const;

/** Below this score a candidate is not shown: no likely cause is better than a wrong one. */
export const MIN_SCORE = 0.1;
/** At most this many causes are shown. */
export const MAX_CAUSES = 5;

/** Certificates fail their checks once expired; domain checks report down within 7 days of expiry. */
export const DOWN_LEAD = { certificate: 0, domain: DOMAIN_DOWN_DAYS * DAY } as const;

/** 1 within `full` of the start, then halving every `half`; 0 after the start or beyond `window`. */
export function timeWeight(age: number, scale: TimeScale): number {
  if (age < 0 || age > scale.window) return 0;
  if (age <= scale.full) return 1;
  return 0.5 ** ((age - scale.full) / scale.half);
}

export function timeScaleOf(candidate: Candidate): TimeScale {
  switch (candidate.kind) {
    case 'certificate':
    case 'domain':
      return EXPIRY_TIME;
    case 'container':
    case 'unit':
    case 'host':
    case 'agent':
      return HOST_TIME;
    default:
      return CHANGE_TIME;
  }
}

export function weightedKind(candidate: Candidate): WeightedKind {
  switch (candidate.kind) {
    case 'change':
      return candidate.change.kind === 'push' ? 'push' : 'change';
    case 'container':
      return candidate.events.some((e) => e.kind === 'oom') ? 'oom' : 'restart';
    case 'unit':
      return candidate.events.some((e) => e.kind === 'unit_failed') ? 'unit_failed' : 'unit_restart';
    case 'host':
      return 'threshold';
    case 'agent':
      return 'silent';
    default:
      return candidate.kind;
  }
}

/** When the state changed. An expiry takes effect when its check starts to report down. */
export function when(candidate: Candidate): number {
  switch (candidate.kind) {
    case 'deploy':
      return candidate.deploy.ts;
    case 'change':
      return candidate.change.ts;
    case 'dependency':
      return Math.max(...candidate.downs.map((d) => d.at));
    case 'certificate':
    case 'domain':
      // A date first recorded after it took effect (the check was added then) counts from when mon saw it.
      return Math.max(candidate.expires - DOWN_LEAD[candidate.kind], candidate.recordedAt);
    case 'container':
    case 'unit':
    case 'host':
    case 'agent':
      return candidate.events.at(-1)!.ts;
  }
}
