import { z } from 'zod';
import type { DiskSample } from './agent.ts';
import { type CheckBody, checkBodySchema } from './check.ts';
import { type HostLimit, hostLimitMax, hostLimits, MAX_IGNORED_MOUNTS } from './host-limits.ts';
import type { CheckKind } from './kinds.ts';
import type { CheckStatus } from './reads.ts';
import { nameSchema } from './text.ts';

/**
 * Hosts in the JSON API (SPEC "Token, user, watchdog", host routes; docs/hosts.md): the bodies the
 * API takes and the reads it answers, shared by the server, the panel and the tests.
 */

/** `POST /api/v1/hosts`. */
export const addHostSchema = z.strictObject({ name: nameSchema });

/**
 * A host alert threshold in range: percent (degrees Celsius for temperature). `off` says how the body
 * turns the alert off, for the message; the API's body and mon.toml's `[[host]]` differ only there.
 */
export function hostLimitSchema(key: HostLimit, off: string) {
  const words = hostLimitWords(key, off);
  return z.number({ error: words }).min(1, words).max(hostLimitMax[key], words);
}

/** The message of a threshold out of range or of the wrong type. */
export const hostLimitWords = (key: HostLimit, off: string) =>
  `must be a number from 1 to ${hostLimitMax[key]}, or ${off}`;

/**
 * Mount points the disk alert leaves out (`ignoreMounts`, `ignore_mounts` in mon.toml), matched
 * exactly against the agent's mount points: spaces are allowed (the agent decodes the mount table's
 * `\040`), and a trailing slash is dropped, so that `/boot/` ignores `/boot`.
 */
export const ignoreMountsSchema = z
  .array(
    z
      .string()
      .max(4096, 'must be at most 4096 characters')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
      .regex(/^\/[^\u0000-\u001f\u007f]*$/, 'must be an absolute mount path such as /boot')
      .transform((path) => path.replace(/(?<=.)\/+$/, '')),
  )
  .max(MAX_IGNORED_MOUNTS, `must list at most ${MAX_IGNORED_MOUNTS} mounts`);

/** Each threshold's schema, made by `of`. */
export function hostLimitShape<S extends z.ZodType>(of: (key: HostLimit) => S): Record<HostLimit, S> {
  return Object.fromEntries(hostLimits.map((key) => [key, of(key)])) as Record<HostLimit, S>;
}

/** `PUT /api/v1/hosts/{name}/alerts`: every key; null turns an alert off. */
export const hostAlertsSchema = z.strictObject({
  ...hostLimitShape((key) => hostLimitSchema(key, 'null to turn the alert off').nullable()),
  ignoreMounts: ignoreMountsSchema,
});
export type HostAlertsBody = z.infer<typeof hostAlertsSchema>;
/** The thresholds in force: `[[host]]`, the API's, or the defaults. */
export type HostAlerts = HostAlertsBody;

/** `POST /api/v1/discovered/dismiss`. */
export const dismissSchema = z.strictObject({
  ids: z
    .array(z.string().regex(/^[0-9a-f]{16}$/, 'must be ids of discovered items'))
    .min(1)
    .max(1000),
});

/** The answer of `POST /api/v1/hosts` (201 for a new host, 200 for a new token): shown once. */
export type AddedHost = {
  name: string;
  /** `bth_…`: the agent's `MON_TOKEN`. Stored hashed; never shown again. */
  token: string;
  /** Where the agent file is served (one self-contained file, no npm install on the host). */
  agentUrl: string;
  install: {
    /** One `docker run` line: host root and runtime socket mounted read-only. */
    docker: string;
    /** A shell snippet that installs the agent as a systemd unit (needs Node on the host). */
    systemd: string;
  };
  /** true when the host existed and its old token stopped working. */
  replaced: boolean;
};

/** The agent as it last introduced itself; null before it first connected. */
export type AgentInfo = {
  /**
   * What the agent says it is (its hello's `agentVersion`): `0.1.0+3f9a1c2b7d4e` for a one-file agent,
   * the package's version and a hash of its code; `0.1.0+source` run from the sources; `0.1.0` for an
   * agent built before builds had a hash.
   */
  version: string;
  /**
   * Whether it runs the agent this server serves (`GET /agent/v1/agent.mjs`): its version is that
   * file's. false for any other (older, newer, run from the sources); null when the server has no
   * agent file built to compare with, or its file names no version. A restart updates it (docs/agent.md, "Updating agents").
   */
  current: boolean | null;
  /** When `current` is false: the version a restart would give it, the one served. */
  update?: { version: string };
  protocol: number;
  capabilities: string[];
  hostname: string;
  os: string;
  kernel: string;
  arch: string;
  cores: number;
  firstSeen: number;
  lastSeen: number;
  /** A frame arrived within the silence timeout. */
  connected: boolean;
  /**
   * How far the host's clock runs from the server's (ms): positive ahead, negative behind. For an agent
   * that sends its clock (`mon-agent-time`), as measured on its last request, when more than 60 s either
   * way; for an older agent, how far ahead its last batch's newest frame was, when more than 5 minutes
   * (`hosts.clock_ahead_ms`). Absent otherwise.
   */
  clockOffsetMs?: number;
};

/** A host's metric series: per-step means (and the CPU maximum), null where no sample fell. */
export type HostSeries = {
  x: number[];
  stepMs: number;
  cpu: (number | null)[];
  cpuMax: (number | null)[];
  memory: (number | null)[];
  /** Empty when the host has no swap. */
  swap: (number | null)[];
  /** The fullest filesystem not in `ignoreMounts`, percent. */
  disk: (number | null)[];
  diskRead: (number | null)[];
  diskWrite: (number | null)[];
  netRx: (number | null)[];
  netTx: (number | null)[];
  load1: (number | null)[];
  load5: (number | null)[];
  load15: (number | null)[];
  /** The hottest sensor, °C; empty without sensors. */
  temperature: (number | null)[];
};

/** The latest sample as the host page shows it. */
export type HostNow = {
  ts: number;
  cpu: number | null;
  memory: { used: number; total: number; percent: number } | null;
  swap: { used: number; total: number; percent: number } | null;
  disks: (DiskSample & { percent: number; ignored: boolean })[];
  diskIo: { readBps: number; writeBps: number } | null;
  net: { rxBps: number; txBps: number } | null;
  load: [number, number, number] | null;
  temperatures: { sensor: string; celsius: number }[];
};

/** A host alert failing now. */
export type HostAlertNow = {
  key: string;
  metric: 'cpu' | 'memory' | 'swap' | 'disk' | 'temperature' | 'container' | 'agent';
  name: string;
  detail: string;
  since: number;
  incident: string | null;
};

export type ContainerRow = {
  name: string;
  image: string;
  state: string;
  health: 'starting' | 'healthy' | 'unhealthy' | null;
  restarts: number;
  exitCode: number | null;
  startedAt: number | null;
  cpu: number | null;
  memory: number | null;
  /** The service it belongs to, or null (then it is also among the discovered items unless dismissed). */
  service: string | null;
  updatedAt: number;
};

export type UnitRow = {
  name: string;
  state: string;
  subState: string;
  restarts: number;
  cpu: number | null;
  memory: number | null;
  service: string | null;
  updatedAt: number;
};

/** A container or unit that belongs to no service, not dismissed. */
export type DiscoveredItem = {
  id: string;
  host: string;
  kind: 'container' | 'unit';
  name: string;
  /** Container image, or null for a unit. */
  image: string | null;
  state: string;
  firstSeen: number;
};

/** `checkConflicts` item (SPEC): a checks.toml check not taken, and what holds its name. */
export type CheckConflict = { name: string; with: 'file' | 'panel' | 'host' | 'free'; host: string | null };

/** `GET /api/v1/hosts`. */
export type HostsList = { hosts: HostSummary[] };

export type HostSummary = {
  name: string;
  fromFile: boolean;
  services: string[];
  agent: AgentInfo | null;
  /** From the latest sample; null before one. */
  cpu: number | null;
  memory: number | null;
  disk: number | null;
  alerting: number;
  containers: number;
  units: number;
  discovered: number;
};

/** `GET /api/v1/hosts/{name}` (range default 24h). */
export type HostRead = {
  name: string;
  fromFile: boolean;
  services: string[];
  agent: AgentInfo | null;
  /** The thresholds in force; null turns an alert off. */
  alerts: HostAlerts;
  /** Where `alerts` come from: `file` ([[host]]: the API gives 409), `api`, or `default`. */
  alertsFrom: 'file' | 'api' | 'default';
  alerting: HostAlertNow[];
  now: HostNow | null;
  series: HostSeries;
  containers: ContainerRow[];
  units: UnitRow[];
  discovered: DiscoveredItem[];
  checks: {
    id: string;
    name: string;
    kind: CheckKind | 'command';
    status: CheckStatus;
    hostDefined: boolean;
  }[];
  checkConflicts: CheckConflict[];
  /** Lines of checks.toml the agent could not use. */
  checkProblems: string[];
};

/** `GET /api/v1/hosts/{name}/containers/{container}` and `/units/{unit}` (SPEC): CPU percent of one CPU, memory bytes. */
export type ItemSeries = {
  x: number[];
  stepMs: number;
  cpu: (number | null)[];
  cpuMax: (number | null)[];
  mem: (number | null)[];
  memMax: (number | null)[];
};

/** `POST /api/v1/discovered/monitor`. */
export type MonitorBody = { host: string; service: string; check: CheckBody | null };
/** Its schema: `check` is a check body as `POST /checks` takes it (its `service` the one monitored), or null. */
export const monitorSchema = z.strictObject({
  host: nameSchema,
  service: nameSchema,
  check: checkBodySchema.nullable().optional(),
});
/** Its answer (201). */
export type Monitored = { service: string; check: string | null };

/** What an incident shows of a host around its start: CPU and memory, and the largest containers and units. */
export type IncidentHost = {
  name: string;
  x: number[];
  stepMs: number;
  cpu: (number | null)[];
  memory: (number | null)[];
  /** At most five each, by memory then CPU around the start. */
  containers: ({ name: string } & ItemSeries)[];
  units: ({ name: string } & ItemSeries)[];
  /** The agent's log lines from 15 minutes before the start to 5 minutes after (at most 100). */
  logs: { ts: number; level: string; text: string }[];
};
