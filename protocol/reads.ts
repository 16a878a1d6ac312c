/**
 * Read shapes of the JSON API's checks and services (SPEC "Check read models", docs/api-checks.md),
 * shared by the server (its builders return them), the panel and the tests.
 */
import type { CheckBody, CommandBody, StoredCheckKind } from './check.ts';
import type { ChangeRow, DeployRow } from './deploys.ts';

/** A check's or a service's status. */
export type CheckStatus = 'up' | 'down' | 'degraded' | 'unknown';
/** The status of one run: a run is never unknown. */
export const runStatuses = ['up', 'down', 'degraded'] as const;
export type RunStatus = (typeof runStatuses)[number];

/**
 * Percent of up or degraded runs per window, runs inside maintenance windows left out; null for a
 * window without runs.
 */
export type Uptime = { day: number | null; month: number | null; year: number | null };

/**
 * What an uptime window measured: `since` is null when the whole window was measured, else when the
 * check (a service: its oldest check) was made; `noDataMs` is how long of that mon was not running
 * (no data, never counted as up); `maintenanceMs` how long of the rest the service was in maintenance
 * (its runs then count neither as up nor as down).
 */
export type UptimeSpan = { since: number | null; noDataMs: number; maintenanceMs: number };

/** A maintenance window holding a service now: until when (the latest end among them), and why. */
export type MaintenanceNow = { until: number; reason: string | null };
export type UptimeSpans = { day: UptimeSpan; month: UptimeSpan; year: UptimeSpan };

/** A span when mon itself was not running. */
export type Gap = { from: number; to: number };

/**
 * A down check with successes since its last failure: `since` is the first of them, `upAt` when it
 * counts as up if its runs keep passing (two successes and 3 minutes).
 */
export type Recovery = { since: number; upAt: number };

/** The latest observed certificate or domain registration expiry. */
export type Expiry = { kind: 'certificate' | 'domain'; expires: number; seen: number };

/** A heartbeat's last ping, its `/start` without a finish yet, and when it is late. */
export type HeartbeatState = {
  lastPingAt: number | null;
  startedAt: number | null;
  dueAt: number | null;
  /** A ping URL exists (made through the API, or a `ping_token` in mon.toml). */
  hasPingUrl: boolean;
};

/** A check row: in a service's `checks` and as `check` in the detail. */
export type CheckRow = {
  id: string;
  name: string;
  service: string;
  /** `command` for a command check of a host's checks.toml (`hostDefined`, `from` its host). */
  kind: StoredCheckKind;
  status: CheckStatus;
  /** When the check took its status; null before the first run. */
  since: number | null;
  /** Set while a down check is on its way up; null otherwise. */
  recovering: Recovery | null;
  target: string | null;
  /** null for a heartbeat with `cron`. */
  everyMs: number | null;
  cron: string | null;
  from: string | null;
  managed: boolean;
  hostDefined: boolean;
  lastRunAt: number | null;
  lastLatencyMs: number | null;
  lastDetail: string | null;
  lastValue: number | null;
  expiry: Expiry | null;
  /** Heartbeats only; null for other kinds. */
  heartbeat: HeartbeatState | null;
};

/** `GET /api/v1/services`: every service, sorted by name. */
export type ServicesList = { services: ServiceSummary[] };

export type ServiceSummary = {
  name: string;
  /** From mon.toml. */
  managed: boolean;
  /** The worst status of its checks; unknown without checks. */
  status: CheckStatus;
  /** Its hosts: `[[service]] hosts`, then those linked by `POST /api/v1/discovered/monitor`. */
  hosts: string[];
  /** Its web sites (`[[service]] sites` and `POST /api/v1/sites`), sorted. */
  sites: string[];
  uptime: { day: number | null };
  checks: {
    id: string;
    name: string;
    kind: StoredCheckKind;
    status: CheckStatus;
    recovering: Recovery | null;
  }[];
};

/** `GET /api/v1/services/{name}`: one service with its check rows, sorted by name. */
export type ServiceRead = {
  name: string;
  managed: boolean;
  status: CheckStatus;
  /** As in the services list. */
  hosts: string[];
  /** In maintenance now (a window of the service, one of its hosts, or everything); else null. */
  maintenance: MaintenanceNow | null;
  /** Its web sites (`[[service]] sites` and `POST /api/v1/sites`), sorted. */
  sites: string[];
  uptime: Uptime;
  uptimeSpan: UptimeSpans;
  checks: CheckRow[];
};

/**
 * `GET /api/v1/checks/{id}`: the definition; `input` is the check body with header values hidden, or
 * for a command check (`hostDefined`) the command check as its host declared it.
 */
export type CheckDefinitionRead = {
  id: string;
  managed: boolean;
  hostDefined: boolean;
  input: CheckBody | CommandBody;
};

/** One of the newest 90 runs of the detail, oldest first. */
export type Beat = { ts: number; status: RunStatus; latencyMs: number | null; detail: string };

/** A check's chart: `x` step starts, latency percentiles and command values per step. */
export type Series = {
  x: number[];
  stepMs: number;
  p50: (number | null)[];
  p95: (number | null)[];
  value: (number | null)[];
};

/** `GET /api/v1/checks/{id}/detail`. */
export type CheckDetail = {
  check: CheckRow;
  service: { name: string; status: CheckStatus };
  beats: Beat[];
  /** null until the check has run; otherwise each window is null when it saw no run. */
  uptime: Uptime | null;
  uptimeSpan: UptimeSpans;
  /** When mon was not running, from the oldest beat on (oldest first). */
  gaps: Gap[];
  dayAverageMs: number | null;
  series: Series;
  expiry: Expiry | null;
  /** Deploys of the check's service in the chart's range, oldest first: markers on the chart. */
  deploys: DeployRow[];
  /** Changes in the chart's range of its service, of the service's hosts, or bound to nothing; oldest first. */
  changes: ChangeRow[];
};

/**
 * A history item: a failed or degraded run (`failure`), or a change (`change`: a new status, an expiry
 * change with `status` null, or a move to another service).
 */
export type HistoryItem = {
  ts: number;
  kind: 'failure' | 'change';
  status: CheckStatus | null;
  title: string;
  detail: string;
  latencyMs: number | null;
};

/** `GET /api/v1/checks/{id}/history`: newest first; `next` is the next page's `before`, or null. */
export type HistoryPage = { items: HistoryItem[]; next: number | null };

/** The answer of a create or change that names what it made: `POST /checks` (201), `PUT /checks/{id}`. */
export type Created = { id: string };

/** `POST /api/v1/checks/{id}/ping-url` (201): the new URL, shown once. */
export type PingUrl = { url: string; replaced: boolean };
