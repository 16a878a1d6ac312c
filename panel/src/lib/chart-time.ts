import { DAY } from '../../../protocol/durations.ts';
import { formatTime } from './format.ts';

/**
 * The times of charts. Series of a day's step (or longer) sum the server's UTC days: a point is a date,
 * which shown as a local moment would sit under the day before west of UTC. Finer steps are moments,
 * shown in the browser's time zone, which pages name.
 */

const utcDate = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  year: 'numeric',
  month: 'short',
  day: 'numeric',
  timeZone: 'UTC',
});
const utcTick = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });

/** The browser's time zone as IANA names it ("Europe/Berlin"). */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** Whether a series of this step stands for UTC days rather than moments. */
export function isUtcDays(stepMs: number): boolean {
  return stepMs >= DAY;
}

/** What a point stands for: its UTC date for day steps ("Tue, Mar 31, 2026"), else its start, local. */
export function pointTime(ms: number, stepMs: number): string {
  return isUtcDays(stepMs) ? utcDate.format(ms) : formatTime(ms);
}

/** A tick of a day series' axis: its UTC date, short ("Mar 31"). */
export function axisDay(ms: number): string {
  return utcTick.format(ms);
}

/** Where a day series' axis has its ticks: UTC midnights from `min` to `max`, `incr` (whole days) apart. */
export function dayTicks(min: number, max: number, incr: number): number[] {
  const ticks: number[] = [];
  for (let t = Math.ceil(min / DAY) * DAY; t <= max; t += incr) ticks.push(t);
  return ticks;
}

/** A chart's times for its caption: "points are UTC days", or "times in your browser's time zone (…)". */
export function chartTimes(stepMs: number): string {
  return isUtcDays(stepMs)
    ? 'points are UTC days'
    : `times in your browser's time zone (${browserTimeZone()})`;
}

/**
 * The sentence a page states its times with (before "; now …"); with a chart of UTC days (`stepMs` a day
 * or more) it says so first.
 */
export function timesNote(stepMs = 0): string {
  const zone = `shown in your browser's time zone (${browserTimeZone()})`;
  return isUtcDays(stepMs) ? `Chart points are UTC days; other times are ${zone}` : `Times are ${zone}`;
}
