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

type Frames = Omit<DecodedFrames, 'unknown' | 'invalid'>;

/**
 * Leaves out the frames of a request dated more than MAX_AHEAD_MS after `now` (its arrival): each
 * hello, sample, declare and run by its `ts`, each log line by its own (a log frame left with no line
 * counts as skipped). `aheadMs` is how far ahead of `now` the newest frame sent was dated, skipped or
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
    hello: keep(frames.hello),
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
