import type { CheckRow, Recovery, UptimeSpan } from '../../../../protocol/reads.ts';
import { formatDuration, formatWhen } from '../../lib/format.ts';

/** What a check watches, in one line: its target, or a heartbeat's schedule. */
export function targetText(c: Pick<CheckRow, 'kind' | 'target' | 'cron' | 'everyMs'>): string {
  if (c.kind === 'heartbeat') return c.cron ? `cron ${c.cron}` : `every ${formatDuration(c.everyMs ?? 0)}`;
  return c.target ?? '';
}

/** Why a check cannot be changed in the panel, or null when it can. */
export function readOnlyReason(
  def: { managed: boolean; hostDefined: boolean },
  from: string | null,
): string | null {
  if (def.managed) return 'This check is defined in mon.toml. Change it there; the file is reloaded on save.';
  if (def.hostDefined)
    return `This check is defined in the agent's checks.toml on host ${from ?? '(unknown)'}. Change it there; the agent reads it when it restarts.`;
  return null;
}

/** When a recovering check counts as up: "counts as up at 10:05 if runs keep passing". */
export function recoveryText(r: Recovery, now = Date.now()): string {
  return `counts as up at ${formatWhen(r.upAt, now)} if runs keep passing`;
}

/**
 * What an uptime figure covers when it is not its whole window: "since 1 Jan 2026, 10:02" for a check
 * younger than the window, "2 h without data" for time mon was not running, "4 h of maintenance left
 * out" for maintenance windows. Undefined otherwise.
 */
export function uptimeNote(span: UptimeSpan, now = Date.now()): string | undefined {
  const parts: string[] = [];
  if (span.since !== null) parts.push(`since ${formatWhen(span.since, now)}`);
  if (span.noDataMs > 0) parts.push(`${formatDuration(span.noDataMs)} without data`);
  if (span.maintenanceMs > 0) parts.push(`${formatDuration(span.maintenanceMs)} of maintenance left out`);
  return parts.length > 0 ? parts.join(' · ') : undefined;
}
