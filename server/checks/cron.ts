import { Cron } from 'croner';

/** Next times of heartbeat cron expressions, in the heartbeat's IANA time zone (DST by the zone's rules). */
const cache = new Map<string, Cron>();

function cronOf(expr: string, timezone: string): Cron {
  const key = `${timezone} ${expr}`;
  let cron = cache.get(key);
  if (!cron) {
    cron = new Cron(expr, { timezone, paused: true, mode: '5-part' });
    if (cache.size > 10_000) cache.clear();
    cache.set(key, cron);
  }
  return cron;
}

/** The first time the expression matches strictly after `after`, or null when it never does again. */
export function nextCronTime(expr: string, timezone: string, after: number): number | null {
  const next = cronOf(expr, timezone).nextRun(new Date(after));
  return next ? next.getTime() : null;
}

/** The reason `expr` is not a usable cron expression, or null. */
export function cronProblem(expr: string, timezone: string): string | null {
  try {
    cronOf(expr, timezone);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
