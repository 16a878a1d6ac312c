import type { ContainerSample } from '../../protocol/agent.ts';
import { containerStates } from '../../protocol/agent-constants.ts';

/**
 * The parts of the Docker Engine API's answers mon reads, named as its documentation names them
 * (`SystemVersion`, `ContainerSummary`, `ContainerInspectResponse`, `ContainerStatsResponse`), and the
 * pure readings of them. Every field is optional here: the API has an open schema, older daemons and
 * other runtimes speaking it leave fields out, and a missing field gives a null, never a throw.
 */

export type SystemVersion = { ApiVersion?: string; MinAPIVersion?: string };

export type ContainerSummary = {
  Id?: string;
  Names?: string[];
  Image?: string;
  ImageID?: string;
  Created?: number;
  Labels?: Record<string, string> | null;
  State?: string;
  Status?: string;
};

export type ContainerInspectResponse = {
  Id?: string;
  Name?: string;
  Image?: string;
  RestartCount?: number;
  State?: {
    Status?: string;
    OOMKilled?: boolean;
    ExitCode?: number;
    StartedAt?: string;
    FinishedAt?: string;
    Health?: { Status?: string } | null;
  } | null;
  Config?: { Image?: string } | null;
};

/**
 * The fields of an inspect that samples read, all of them (`ContainerInspectResponse`): what the reader
 * keeps of each container between inspects, rather than the whole body (with its environment, mounts,
 * networks and health log, often over 10 KB).
 */
export function inspectFieldsOf(body: ContainerInspectResponse): ContainerInspectResponse {
  const { State: state, Config: config } = body;
  return {
    Image: body.Image,
    RestartCount: body.RestartCount,
    State: state && {
      Status: state.Status,
      OOMKilled: state.OOMKilled,
      ExitCode: state.ExitCode,
      StartedAt: state.StartedAt,
      FinishedAt: state.FinishedAt,
      Health: state.Health && { Status: state.Health.Status },
    },
    Config: config && { Image: config.Image },
  };
}

export type ContainerStatsResponse = {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number } | null } | null;
  memory_stats?: { usage?: number | null; stats?: Record<string, number | null> | null } | null;
};

/** The newest Engine API version mon reads with; a daemon that only speaks older ones is asked in its own. */
export const PREFERRED_API_VERSION = '1.47';

/**
 * The API version to put in paths (`/v1.47/...`): the preferred one, lowered to the daemon's highest
 * when that is older, raised to the daemon's lowest when it no longer speaks it. The fields mon reads
 * are the same in every version since 1.24; one-shot stats need 1.41 (older daemons take a second per
 * stats answer instead).
 */
export function apiVersionFor(version: SystemVersion): string {
  const highest = validVersion(version.ApiVersion);
  const lowest = validVersion(version.MinAPIVersion);
  let chosen = PREFERRED_API_VERSION;
  if (highest && compareVersions(highest, chosen) < 0) chosen = highest;
  if (lowest && compareVersions(lowest, chosen) > 0) chosen = lowest;
  return chosen;
}

function validVersion(text: string | undefined): string | null {
  return typeof text === 'string' && /^\d+\.\d+$/.test(text) ? text : null;
}

function compareVersions(a: string, b: string): number {
  const [aMajor = 0, aMinor = 0] = a.split('.').map(Number);
  const [bMajor = 0, bMinor = 0] = b.split('.').map(Number);
  return aMajor - bMajor || aMinor - bMinor;
}

/** The labels mon reads (which service a container belongs to); the rest stay on the host. */
export const READ_LABELS = ['mon.service', 'com.docker.compose.project', 'com.docker.compose.service'];

export function labelsOf(labels: Record<string, string> | null | undefined): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const key of READ_LABELS) {
    const value = labels?.[key];
    if (typeof value === 'string') kept[key] = value.slice(0, 1024);
  }
  return kept;
}

/**
 * The container's name without the leading `/`. Legacy links add names of the form `/other/alias`;
 * the container's own is the one without a second slash.
 */
export function nameOf(summary: ContainerSummary): string | null {
  const names = (summary.Names ?? []).map((name) => name.replace(/^\//, ''));
  return names.find((name) => !name.includes('/')) ?? names[0] ?? null;
}

export type ContainerState = ContainerSample['state'];

export function stateOf(text: string | undefined): ContainerState | null {
  return containerStates.find((state) => state === text) ?? null;
}

/**
 * Milliseconds of an RFC 3339 time of the API (nanoseconds are cut to milliseconds). Go's zero time
 * (`0001-01-01T00:00:00Z`, "never") and anything unreadable are null.
 */
export function engineTime(text: string | undefined): number | null {
  if (typeof text !== 'string') return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms) : null;
}

/** The health of a container that is up and has a healthcheck; null otherwise (`none`, or not running). */
export function healthOf(
  inspect: ContainerInspectResponse,
  state: ContainerState,
): ContainerSample['health'] {
  if (state !== 'running' && state !== 'paused') return null;
  const status = inspect.State?.Health?.Status;
  return status === 'starting' || status === 'healthy' || status === 'unhealthy' ? status : null;
}

/**
 * The last exit code, where it means something: a container that exited, died or is waiting to be
 * restarted after exiting. A running one reports 0 in the API, which says nothing.
 */
export function exitCodeOf(inspect: ContainerInspectResponse, state: ContainerState): number | null {
  if (state !== 'exited' && state !== 'dead' && state !== 'restarting') return null;
  const code = inspect.State?.ExitCode;
  return typeof code === 'number' && Number.isInteger(code) ? code : null;
}

/**
 * Bytes in use without the inactive file cache, the pages the kernel drops first under pressure:
 * cgroup v2 `usage − stats.inactive_file`; cgroup v1 `usage − stats.total_inactive_file` (the
 * hierarchical count; v1 also has `inactive_file`, the cgroup's own pages only, so `total_` is tried
 * first). A runtime that gives neither gives `cache` (v1's whole page cache) as the next best thing,
 * and one that gives none of them the usage as it is. As `docker stats` does, a cache figure above the
 * usage (counters read at slightly different moments) leaves the usage as it is.
 */
export function memoryWithoutCache(stats: ContainerStatsResponse): number | null {
  const memory = stats.memory_stats;
  const usage = memory?.usage;
  if (typeof usage !== 'number' || !Number.isFinite(usage) || usage < 0) return null;
  const counters = memory?.stats ?? {};
  const cache = [counters.total_inactive_file, counters.inactive_file, counters.cache].find(
    (value): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0,
  );
  return cache !== undefined && cache <= usage ? usage - cache : usage;
}

/** `cpu_stats.cpu_usage.total_usage`: nanoseconds of CPU the container used since it started. */
export function cpuUsageOf(stats: ContainerStatsResponse): number | null {
  const total = stats.cpu_stats?.cpu_usage?.total_usage;
  return typeof total === 'number' && Number.isFinite(total) && total >= 0 ? total : null;
}
