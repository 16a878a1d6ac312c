import { z } from 'zod';
import { formatDuration, parseDuration } from '../../protocol/durations.ts';

/**
 * Duration strings of mon.toml (`500ms`, `30s`, `5m`, `1h30m`, `2d`; see protocol/durations.ts). Bare
 * numbers are refused: `timeout = 30` could mean seconds or milliseconds.
 */
export { formatDuration, parseDuration };

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
