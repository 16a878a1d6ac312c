import type { CheckRow } from '../../../../protocol/reads.ts';
import { formatDuration } from '../../lib/format.ts';

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
