/**
 * The overview read (`GET /api/v1/overview`) and the warnings read (`GET /api/v1/warnings`), shared by
 * the server's builders, the panel and the tests. docs/api-overview.md describes them.
 */
import type { StoredCheckKind } from './check.ts';
import type { ChangeRow, DeployRow } from './deploys.ts';
import type { IncidentSummary } from './incidents.ts';
import type { CheckStatus, MaintenanceNow, Recovery, RunStatus } from './reads.ts';

/** One check of the overview: its status now, and the range as a strip of slots. */
export type OverviewCheck = {
  id: string;
  name: string;
  kind: StoredCheckKind;
  status: CheckStatus;
  recovering: Recovery | null;
  /** The worst run of each slot (see `Overview.strip`), oldest first; null for a slot without runs. */
  strip: (RunStatus | null)[];
  /** Percent of up or degraded runs in the strip's slots (runs inside maintenance left out); null without runs. */
  uptime: number | null;
  /** Median response time over the range, and that of the last run; null without one. */
  latency: { p50: number | null; last: number | null };
};

/** A service: the worst status of its checks, uptime of all its checks over the range. */
export type OverviewService = {
  name: string;
  managed: boolean;
  status: CheckStatus;
  /** In maintenance now; null otherwise. */
  maintenance: MaintenanceNow | null;
  /** Percent of up or degraded runs over the range, leaving out runs inside maintenance windows. */
  uptime: number | null;
  /** Sorted by name. */
  checks: OverviewCheck[];
};

/** `GET /api/v1/overview`: `range` default 24h, or `from` and `to`. */
export type Overview = {
  from: number;
  to: number;
  /**
   * Slot `i` of every strip covers [start + i·stepMs, start + (i+1)·stepMs); 24 to 90 slots. `start` is
   * the first slot boundary at or after `from`; the last slot may reach past `to` (it is the current one).
   */
  strip: { start: number; stepMs: number; slots: number };
  /** Every service, sorted by name. */
  services: OverviewService[];
  /** Open incidents, newest first. */
  incidents: IncidentSummary[];
  /** Deploys in range, newest first. */
  deploys: DeployRow[];
  /** Every change in range (bound to a service, a host, or nothing), newest first. */
  changes: ChangeRow[];
};

/** `GET /api/v1/warnings`: setups in which alerts may not reach anyone. */
export type Warnings = {
  /**
   * mon runs on a machine it watches (a host of a `[[service]]`, a check's `from`, or a check target
   * that is this machine): if that machine stops, nobody is told. null when mon cannot tell yet (a
   * target's name did not resolve).
   */
  sharedHost: boolean | null;
  /** Notification channels configured. 0: nobody will be told. */
  channels: number;
  /**
   * A peer not in `trusted_proxies` that sent requests with `X-Forwarded-For` in the last hour, and its
   * share of all requests then; null when none did.
   */
  untrustedProxy: { address: string; sharePercent: number } | null;
};
