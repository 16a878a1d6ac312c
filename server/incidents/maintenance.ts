import type { DatabaseSync } from 'node:sqlite';
import type { CauseScope } from './causes/index.ts';

/**
 * Whether an incident of `scope` opening at `ts` falls inside a maintenance window of one of its
 * services or hosts (or of everything); such an incident is marked `inMaintenance`. mon has no
 * maintenance windows yet, so none does.
 */
export function inMaintenance(
  _db: DatabaseSync,
  _scope: Pick<CauseScope, 'services' | 'hosts'>,
  _ts: number,
): boolean {
  return false;
}
