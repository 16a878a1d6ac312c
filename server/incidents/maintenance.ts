import type { DatabaseSync } from 'node:sqlite';
import { inMaintenanceAt } from '../windows/active.ts';
import type { CauseScope } from './causes/index.ts';

/**
 * Whether an incident of `scope` opening at `ts` falls inside a maintenance window of one of its
 * services or hosts (or of everything); such an incident is marked `inMaintenance` and notifies nobody.
 */
export function inMaintenance(
  db: DatabaseSync,
  scope: Pick<CauseScope, 'services' | 'hosts'>,
  ts: number,
): boolean {
  return inMaintenanceAt(db, scope, ts);
}
