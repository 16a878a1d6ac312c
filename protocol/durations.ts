/**
 * Duration text as mon writes it: a sequence of whole numbers with units, such as `500ms`, `30s`, `5m`,
 * `1h30m` or `2d`. mon.toml's durations, the panel's duration fields and validation messages about
 * millisecond fields use it. `spanText` is the other way: a span in words for people to read.
 */
export const SECOND = 1000;
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

const units = { ms: 1, s: SECOND, m: MINUTE, h: HOUR, d: DAY } as const;
type Unit = keyof typeof units;
const whole = /^(?:\d{1,9}(?:ms|s|m|h|d))+$/;
const part = /(\d+)(ms|s|m|h|d)/g;

/** Milliseconds of a duration string, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const value = text.trim();
  if (!whole.test(value)) return null;
  let total = 0;
  for (const m of value.matchAll(part)) total += Number(m[1]) * units[m[2] as Unit];
  return Number.isSafeInteger(total) ? total : null;
}

/** The duration in its largest exact unit: 90000 → `90s`, 7200000 → `2h`, 1500 → `1500ms`. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % units[unit] === 0) return `${ms / units[unit]}${unit}`;
  }
  return `${ms}ms`;
}

/**
 * A span in words, in whole units rounded down: "0 s", "90 s", "12 min", "1 h 3 min", "24 h", "3 d 5 h".
 * Seconds up to 2 minutes, hours up to 2 days: "60 s" and "24 h" read better than "1 min" and "1 d 0 h".
 * Events' details, the log and notifications use it.
 */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}
