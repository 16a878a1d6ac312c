import type { CheckDefinition } from '../../protocol/check.ts';
import { nextCronTime } from './cron.ts';

/**
 * Heartbeat schedules, pure. A heartbeat is expected at its last ping (or creation) plus `everyMs`, or
 * at the next cron time after it; late at the expected time plus grace. A `/start` must finish within grace.
 */
export type HeartbeatTimes = {
  /** The time the next ping is expected. */
  expectedAt: number;
  /** A `/start` without its finishing ping yet. */
  startedAt: number | null;
};

/** What a heartbeat's times depend on. */
export type HeartbeatSchedule = Pick<CheckDefinition, 'everyMs' | 'cron' | 'timezone' | 'graceMs'>;

const FAR = 8_640_000_000_000_000;

/** The next expected ping time after `t`. */
export function expectedAfter(def: HeartbeatSchedule, t: number): number {
  if (def.cron) return nextCronTime(def.cron, def.timezone, t) ?? FAR;
  return t + def.everyMs;
}

/** When the heartbeat is due to be declared down, and why. */
export function heartbeatDeadline(
  def: HeartbeatSchedule,
  times: HeartbeatTimes,
): { at: number; reason: 'late' | 'unfinished' } {
  const late = times.expectedAt + def.graceMs;
  if (times.startedAt !== null && times.startedAt + def.graceMs < late) {
    return { at: times.startedAt + def.graceMs, reason: 'unfinished' };
  }
  return { at: late, reason: 'late' };
}

/** After the deadline passed at `now`: the next expected time, never in a burst after a long pause. */
export function afterMissed(
  def: HeartbeatSchedule,
  times: HeartbeatTimes,
  reason: 'late' | 'unfinished',
  now: number,
): HeartbeatTimes {
  if (reason === 'unfinished') return { expectedAt: times.expectedAt, startedAt: null };
  return {
    expectedAt: expectedAfter(def, Math.max(times.expectedAt, now - def.graceMs)),
    startedAt: times.startedAt,
  };
}

/**
 * The detail of the down run recorded when a heartbeat misses its deadline. Times are ISO 8601 UTC:
 * the panel shows them in the viewer's time zone.
 */
export function missedDetail(
  def: HeartbeatSchedule,
  times: HeartbeatTimes,
  reason: 'late' | 'unfinished',
  lastPingAt: number | null,
): string {
  if (reason === 'unfinished') {
    // heartbeatDeadline gives `unfinished` only with a start.
    return `started at ${iso(times.startedAt!)} and did not finish within ${Math.round(def.graceMs / 1000)} s`;
  }
  const last = lastPingAt === null ? 'never pinged' : `no ping since ${iso(lastPingAt)}`;
  return `${last}; expected by ${iso(times.expectedAt)}`;
}

const iso = (ms: number) => new Date(ms).toISOString();

export type PingKind = 'success' | 'fail' | 'start';

/** Parses the suffix of `/ping/<token>/<suffix>`: `start`, `fail` or an exit code 0 to 255; null otherwise. */
export function parseSuffix(suffix: string | undefined): { kind: PingKind; exitCode: number | null } | null {
  if (suffix === undefined || suffix === '') return { kind: 'success', exitCode: null };
  if (suffix === 'start') return { kind: 'start', exitCode: null };
  if (suffix === 'fail') return { kind: 'fail', exitCode: null };
  if (/^(0|[1-9]\d{0,2})$/.test(suffix) && Number(suffix) <= 255) {
    const code = Number(suffix);
    return { kind: code === 0 ? 'success' : 'fail', exitCode: code };
  }
  return null;
}
