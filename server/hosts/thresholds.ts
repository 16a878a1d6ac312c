import { AGENT_SILENT_AFTER_MS, SAMPLE_EVERY_MS } from '../../protocol/agent.ts';
import { MINUTE } from '../../protocol/durations.ts';

/**
 * Host thresholds (docs/hosts.md "Alerts"), pure: the same inputs give the same outputs, time comes in
 * with each sample. CPU, memory, swap and temperature fail once every sample for 5 minutes was above
 * the limit (a sample at or below it starts the wait again; a sample without the value neither counts
 * nor resets). The 5 minutes must be of samples: the wait starts again after a gap in the host's
 * samples longer than the agent's silence timeout (agent stopped, host rebooted), and once the value
 * stayed missing that long, so two samples above the limit far apart never fail an alert. A disk
 * fails at once when its fullest filesystem not ignored is at or above the limit.
 *
 * Recovery has a margin, so a value hovering at the limit does not flap: a failing alert recovers
 * after two samples in a row below the limit by 5 points (by half the limit for limits under 10),
 * e.g. below 85% for a limit of 90%. A limit turned off recovers a failing alert at the next sample.
 * A failing alert whose value is missing from two samples in a row recovers too: what it watched is
 * gone (swap turned off, a sensor's driver unloaded, every filesystem ignored), and an alert nobody
 * can measure would otherwise fail for ever.
 */

export const THRESHOLD_METRICS = ['cpu', 'memory', 'swap', 'disk', 'temperature'] as const;
export type ThresholdMetric = (typeof THRESHOLD_METRICS)[number];

/** How long every sample must stay above the limit before the alert fails (a disk fails at once). */
export const ABOVE_FOR_MS = 5 * MINUTE;
/** Recovery waits for two samples in a row this many points below the limit. */
export const RECOVERY_MARGIN = 5;
/** A failing alert recovers once this many samples in a row came without its value. */
export const ABSENT_SAMPLES = 2;
/**
 * Samples in a row without the value a spell above the limit goes on through: a metric briefly
 * unreadable (an agent's first sample after a start has no CPU yet, a sensor read failing once) does
 * not start the 5 minutes again, but one more would leave no value for longer than the silence timeout.
 */
export const MISSING_IN_SPELL = AGENT_SILENT_AFTER_MS / SAMPLE_EVERY_MS - 1;

/**
 * Whether the host's samples stopped between its previous sample (null: none before) and this one for
 * longer than the agent's silence timeout, after which the server calls the agent silent anyway:
 * nothing is known of that time, so a spell that needs samples all along starts again.
 */
export function samplesStopped(previous: number | null, ts: number): boolean {
  return previous !== null && ts - previous > AGENT_SILENT_AFTER_MS;
}

export type ThresholdState = {
  /** The first sample of the current spell above the limit (for a disk: when it filled). */
  aboveSince: number | null;
  /** Set while the alert fails. */
  failingSince: number | null;
  /** While failing: the latest value (the previous sample of the recovery rule). */
  value: number | null;
  /** While failing: what the alert said when it started failing. */
  detail: string | null;
  /** The samples in a row that came without the value (while failing, or during a spell above). */
  absent: number;
};

export const idleThreshold: ThresholdState = {
  aboveSince: null,
  failingSince: null,
  value: null,
  detail: null,
  absent: 0,
};

/** One sample's value of the metric; for a disk, the fullest filesystem's mount too. */
export type Reading = { value: number | null; mount: string | null };

export type ThresholdTransition =
  | {
      to: 'failing';
      /** "CPU above 90% for 5 minutes (97%)", "disk / 96% full (limit 90%)". */
      detail: string;
      /** For an incident's title: "CPU above 90%", "disk / 96% full". */
      summary: string;
      /** When the value went above the limit. */
      since: number;
    }
  | {
      to: 'recovered';
      /** "CPU at 61% (limit 90%)", "the CPU alert was turned off", "no swap any more". */
      detail: string;
    };

const label: Record<ThresholdMetric, string> = {
  cpu: 'CPU',
  memory: 'memory',
  swap: 'swap',
  disk: 'disk',
  temperature: 'temperature',
};

/** Why a failing alert recovers when its value stays missing. */
const goneWords: Record<ThresholdMetric, string> = {
  cpu: 'no CPU value any more',
  memory: 'no memory value any more',
  swap: 'no swap any more',
  disk: 'no filesystem left to watch',
  temperature: 'no temperature sensor answers',
};

/**
 * A value as the alert names it: "97%", "91 °C". With as many decimals as the limit has (at most two),
 * so that a limit of 12.5 reads as it was set, not as 13.
 */
function shown(metric: ThresholdMetric, value: number, limit: number): string {
  const decimals = Math.min(2, (String(limit).split('.')[1] ?? '').length);
  const text = value.toFixed(decimals);
  return metric === 'temperature' ? `${text} °C` : `${text}%`;
}

/** The value below which a failing alert may recover. */
export function recoveryLevel(limit: number): number {
  return limit - Math.min(RECOVERY_MARGIN, limit / 2);
}

/** The alert's word for the metric: "CPU", "memory", "disk". */
export const thresholdLabel = (metric: ThresholdMetric) => label[metric];

/**
 * Judges one sample of one metric against its limit (null: the alert is off); `previous` is the time
 * of the host's sample before this one (null: none).
 */
export function judgeThreshold(
  metric: ThresholdMetric,
  state: ThresholdState,
  reading: Reading,
  limit: number | null,
  ts: number,
  previous: number | null,
): { state: ThresholdState; transition: ThresholdTransition | null } {
  const failing = state.failingSince !== null;
  if (limit === null) {
    const transition: ThresholdTransition | null = failing
      ? { to: 'recovered', detail: `the ${label[metric]} alert was turned off` }
      : null;
    return { state: idleThreshold, transition };
  }
  const value = reading.value;
  if (failing) {
    if (value !== null) return judgeRecovery(metric, { ...state, absent: 0 }, reading, value, limit);
    // A missing value counts towards recovering for want of anything to measure.
    const absent = state.absent + 1;
    if (absent < ABSENT_SAMPLES) return { state: { ...state, absent }, transition: null };
    return { state: idleThreshold, transition: { to: 'recovered', detail: goneWords[metric] } };
  }
  // A spell above the limit does not outlast a gap in the samples.
  const spell = samplesStopped(previous, ts) ? idleThreshold : state;
  if (value === null) {
    // Neither counts nor resets the wait, unless the value stays missing longer than the silence timeout.
    if (spell.aboveSince === null) return { state: spell, transition: null };
    const absent = spell.absent + 1;
    if (absent > MISSING_IN_SPELL) return { state: idleThreshold, transition: null };
    return { state: { ...spell, absent }, transition: null };
  }

  const above = metric === 'disk' ? value >= limit : value > limit;
  if (!above) return { state: idleThreshold, transition: null };
  const aboveSince = spell.aboveSince ?? ts;
  if (metric !== 'disk' && ts - aboveSince < ABOVE_FOR_MS) {
    return { state: { ...idleThreshold, aboveSince }, transition: null };
  }
  const { detail, summary } =
    metric === 'disk'
      ? diskWords(reading.mount, value, limit)
      : {
          detail: `${label[metric]} above ${shown(metric, limit, limit)} for 5 minutes (${shown(metric, value, limit)})`,
          summary: `${label[metric]} above ${shown(metric, limit, limit)}`,
        };
  return {
    state: { aboveSince, failingSince: ts, value, detail, absent: 0 },
    transition: { to: 'failing', detail, summary, since: aboveSince },
  };
}

function judgeRecovery(
  metric: ThresholdMetric,
  state: ThresholdState,
  reading: Reading,
  value: number,
  limit: number,
): { state: ThresholdState; transition: ThresholdTransition | null } {
  const level = recoveryLevel(limit);
  // Two samples in a row: this one and the one before it, kept in `value` while failing.
  const back = value < level && state.value !== null && state.value < level;
  if (!back) return { state: { ...state, value }, transition: null };
  const detail =
    metric === 'disk'
      ? diskWords(reading.mount, value, limit).detail
      : `${label[metric]} at ${shown(metric, value, limit)} (limit ${shown(metric, limit, limit)})`;
  return { state: idleThreshold, transition: { to: 'recovered', detail } };
}

function diskWords(mount: string | null, value: number, limit: number) {
  const disk = mount === null ? 'disk' : `disk ${mount}`;
  return {
    detail: `${disk} ${shown('disk', value, limit)} full (limit ${shown('disk', limit, limit)})`,
    summary: `${disk} ${shown('disk', value, limit)} full`,
  };
}
