import { z } from 'zod';
import { DAY, MINUTE } from '../../protocol/durations.ts';
import { formatDuration, parseDuration } from '../config/durations.ts';
import { type Built, configSection, type TomlTable } from '../config/section.ts';

/**
 * The `[notify]` table of mon.toml: how notifications behave across channels. `remind_every` is how
 * often an open incident nobody acknowledged is announced again (reminders.ts); `"off"` never.
 * docs/configuration.md lists the keys.
 */

export type NotifySettings = {
  /** Between reminders of an open, unacknowledged incident; null: no reminders. */
  remindEveryMs: number | null;
};

export const defaultRemindEveryMs = 60 * MINUTE;
const limits = { min: 5 * MINUTE, max: 7 * DAY };

const remindEverySchema = z
  .string({ error: 'must be a duration such as 1h, or "off"' })
  .transform((text, ctx): number | null => {
    if (text.trim() === 'off') return null;
    const ms = parseDuration(text);
    if (ms === null) {
      ctx.addIssue({ code: 'custom', message: 'must be a duration such as 30m, 1h or 4h, or "off"' });
      return z.NEVER;
    }
    if (ms < limits.min)
      ctx.addIssue({ code: 'custom', message: `must be at least ${formatDuration(limits.min)}` });
    else if (ms > limits.max)
      ctx.addIssue({ code: 'custom', message: `must be at most ${formatDuration(limits.max)}` });
    return ms;
  });

export const notifySection = configSection({
  key: 'notify',
  tables: { notify: z.strictObject({ remind_every: remindEverySchema.optional() }).optional() },
  build: (input): Built<NotifySettings> => {
    const every = input.notify?.remind_every;
    return { value: { remindEveryMs: every === undefined ? defaultRemindEveryMs : every }, errors: [] };
  },
  empty: (): NotifySettings => ({ remindEveryMs: defaultRemindEveryMs }),
  toToml(value): TomlTable {
    if (value.remindEveryMs === defaultRemindEveryMs) return {};
    const every = value.remindEveryMs === null ? 'off' : formatDuration(value.remindEveryMs);
    return { notify: { remind_every: every } };
  },
});
