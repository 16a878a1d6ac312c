import { spanText } from '../../protocol/durations.ts';
import type { Deps } from '../deps.ts';
import { type DecodedFrames, frameCount } from './decode.ts';

/**
 * Frames dated more than this ahead of the server's clock are not applied. A synchronized clock is
 * within a second of the server's, and one left without NTP for weeks drifts by seconds to a minute:
 * 5 minutes leaves room for those. A frame dated further ahead would move the host's "now" (its latest
 * sample) and its checks' last run into the future, and every real frame after it would count as late
 * (charts only, runs skipped) until real time caught up, years for a clock set to the wrong year.
 */
export const MAX_AHEAD_MS = 5 * 60_000;

/**
 * A host's clock measured further than this from the server's, either way, is shown on its page and
 * logged, and the frames of its agent are placed on the server's clock (`placeOnServerClock`). Within
 * it, a clock is taken as right: network time and a clock without NTP for days stay well inside.
 */
export const CLOCK_TOLERANCE_MS = 60_000;

type Frames = Omit<DecodedFrames, 'unknown' | 'invalid' | 'unknownItems'>;

/**
 * The hosts' clocks as their agents send them (AGENT_TIME_HEADER), measured on each request of frames
 * and each poll. A poll is never a backlog, and the header is the time the request was made, not that
 * of its frames: spooled batches measure as cleanly as fresh ones. Kept in memory, per host: after a
 * restart the next request (within 25 s, a poll) measures again.
 */
export type HostClocks = {
  /**
   * The offset of `host`'s clock (the agent's time minus `at`, the request's arrival: positive when the
   * host's clock is ahead), kept and logged at most once a minute when past the tolerance; null when
   * the agent sent no clock (an older agent) or one that is not a time, and the offset kept before is
   * dropped: an agent that stopped sending its clock is not shown the offset it had.
   */
  measure(host: string, sent: string | string[] | undefined, at: number): number | null;
  /** The offset last measured for `host`, or null. */
  offsetOf(host: string): number | null;
  /** `host` was removed: a host added again under its name is measured afresh. */
  forget(host: string): void;
};

export function hostClocks(deps: Deps): HostClocks {
  const offsets = new Map<string, number>();
  const due = oncePerMinute(deps);
  return {
    measure(host, sent, at) {
      const agentTime = typeof sent === 'string' && /^\d{1,15}$/.test(sent) ? Number(sent) : null;
      if (agentTime === null) {
        offsets.delete(host);
        return null;
      }
      const offset = agentTime - at;
      offsets.set(host, offset);
      if (Math.abs(offset) > CLOCK_TOLERANCE_MS && due(host)) {
        deps.log.warn(
          `the clock of ${host} is ${spanText(Math.abs(offset))} ${offset > 0 ? 'ahead of' : 'behind'} the server's: its frames are placed on the server's clock`,
          { host, clockOffsetMs: offset },
        );
      }
      return offset;
    },
    offsetOf: (host) => offsets.get(host) ?? null,
    forget: (host) => offsets.delete(host),
  };
}

/**
 * The frames of a request moved onto the server's clock: each time the agent took from its clock
 * (each frame's `ts`, each log line's, a container's start and end) less `offsetMs`, when the offset
 * passes CLOCK_TOLERANCE_MS; as they are otherwise. Spooled frames move by the offset measured as they
 * are sent: a clock stepped during an outage moves them by its new offset, not the one they were taken with.
 */
export function placeOnServerClock(frames: Frames, offsetMs: number | null): Frames {
  if (offsetMs === null || Math.abs(offsetMs) <= CLOCK_TOLERANCE_MS) return frames;
  const at = (ts: number) => Math.max(0, ts - offsetMs);
  const atOrNull = (ts: number | null) => (ts === null ? null : at(ts));
  const move = <F extends { ts: number }>(list: F[]): F[] => list.map((f) => ({ ...f, ts: at(f.ts) }));
  return {
    batch: frames.batch,
    hello: move(frames.hello),
    declare: move(frames.declare),
    run: move(frames.run),
    log: frames.log.map((f) => ({ ...f, lines: move(f.lines) })),
    sample: frames.sample.map((s) => ({
      ...s,
      ts: at(s.ts),
      containers:
        s.containers?.map((c) => ({
          ...c,
          startedAt: atOrNull(c.startedAt),
          finishedAt: atOrNull(c.finishedAt),
        })) ?? null,
    })),
  };
}

/**
 * Leaves out the frames of a request dated more than MAX_AHEAD_MS after `now` (its arrival): each
 * sample, declare and run by its `ts`, each log line by its own (a log frame left with no line counts
 * as skipped); a hello is kept. `aheadMs` is how far ahead of `now` the newest frame sent was dated, skipped or
 * not (0 when none was ahead): the host page shows it.
 */
export function leaveOutAhead(
  frames: Frames,
  now: number,
): { frames: Frames; skipped: number; aheadMs: number } {
  const horizon = now + MAX_AHEAD_MS;
  let newest = now;
  const inTime = (ts: number) => {
    if (ts > newest) newest = ts;
    return ts <= horizon;
  };
  const keep = <F extends { ts: number }>(list: F[]): F[] => list.filter((frame) => inTime(frame.ts));
  const log: Frames['log'] = [];
  for (const frame of frames.log) {
    const lines = frame.lines.filter((line) => inTime(line.ts));
    if (lines.length > 0) log.push(lines.length === frame.lines.length ? frame : { ...frame, lines });
  }
  const kept: Frames = {
    batch: frames.batch,
    // The hello is taken whatever its date: it says what the agent is, at no time of its own (its `ts`
    // moves nothing), and without it the host would read as never connected, its offset not shown.
    hello: frames.hello.filter((frame) => inTime(frame.ts) || true),
    sample: keep(frames.sample),
    declare: keep(frames.declare),
    run: keep(frames.run),
    log,
  };
  const skipped = frameCount(frames) - frameCount(kept);
  return { frames: kept, skipped, aheadMs: newest - now };
}

/** Whether to log about a host now: at most once a minute per host, so that a bad agent cannot flood the log. */
export function oncePerMinute(deps: Deps): (host: string) => boolean {
  const warned = new Map<string, number>();
  return (host) => {
    const now = deps.clock.now();
    const last = warned.get(host);
    if (last !== undefined && now - last < 60_000) return false;
    warned.set(host, now);
    return true;
  };
}

/**
 * Says in the log that frames of a host were left out because its clock is ahead of the server's, at
 * most once a minute per host.
 */
export function clockWarnings(deps: Deps): (host: string, aheadMs: number, skipped: number) => void {
  const due = oncePerMinute(deps);
  return (host, aheadMs, skipped) => {
    if (!due(host)) return;
    deps.log.warn(
      `the clock of ${host} is ${spanText(aheadMs)} ahead of the server's: frames dated more than ${spanText(MAX_AHEAD_MS)} ahead are skipped`,
      { host, aheadMs, skipped },
    );
  };
}
