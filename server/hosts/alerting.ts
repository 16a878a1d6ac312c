import type { DatabaseSync } from 'node:sqlite';
import type { ContainerSample } from '../../protocol/agent.ts';
import type { HostAlerts } from '../../protocol/hosts.ts';
import type { HostAlert } from '../events.ts';
import type { Membership } from './membership.ts';
import type { HostMetrics } from './rollups.ts';

/** One sample of a host as host alerts judge it. */
export type HostAlertInput = {
  host: string;
  ts: number;
  metrics: HostMetrics;
  /** null: the sample had no container runtime. */
  containers: ContainerSample[] | null;
  alerts: HostAlerts;
  membership: Membership;
};

/**
 * Judges one sample against the host's thresholds and its containers' health, inside the writer job
 * that stores it: updates `host_alert_states`, records threshold crossings in `host_events`, and
 * returns the alerts that started failing or recovered, for the caller to dispatch.
 */
export function applyHostAlerts(_db: DatabaseSync, _input: HostAlertInput): HostAlert[] {
  return [];
}
