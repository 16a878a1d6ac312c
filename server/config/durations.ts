import { z } from 'zod';

/**
 * Duration strings of mon.toml: a sequence of whole numbers with units, such as `500ms`, `30s`, `5m`,
 * `1h30m` or `2d`. Bare numbers are refused: `timeout = 30` could mean seconds or milliseconds.
 */
const units = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
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

/** A zod schema taking a duration string and giving milliseconds, within optional bounds. */
export function durationSchema(bounds: { min?: number; max?: number } = {}) {
  return z
    .string({
      error: (issue) => (issue.input === undefined ? 'required' : 'use a duration such as 30s, 5m or 1h30m'),
    })
    .transform((text, ctx) => {
      const ms = parseDuration(text);
      if (ms === null) {
        ctx.addIssue({ code: 'custom', message: 'must be a duration such as 500ms, 30s, 5m, 1h30m or 2d' });
        return z.NEVER;
      }
      if (bounds.min !== undefined && ms < bounds.min) {
        ctx.addIssue({ code: 'custom', message: `must be at least ${formatDuration(bounds.min)}` });
      } else if (bounds.max !== undefined && ms > bounds.max) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${formatDuration(bounds.max)}` });
      }
      return ms;
    });
}
