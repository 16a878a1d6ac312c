import { z } from 'zod';
import {
  containerHealths,
  containerStates,
  MAX_BYTES,
  MAX_CELSIUS,
  MAX_CORES,
  MAX_DECLARED_CHECKS,
  MAX_DECLARED_PROBLEMS,
  MAX_LATENCY_MS,
  MAX_LOAD,
  MAX_VALUE,
  MIN_CELSIUS,
  unitStates,
} from './agent-constants.ts';
import { assertionSchema, httpMethods } from './check.ts';
import { checkKinds } from './kinds.ts';
import { nameSchema } from './text.ts';

/**
 * The agent protocol (`/agent/v1`, docs/agent.md): what the host agent sends (`POST /agent/v1/frames`)
 * and what the server answers to its long poll (`GET /agent/v1/poll`). One schema for both sides: the
 * agent builds frames of these types, the server parses them with these schemas. A frame of a kind the
 * server does not know is counted (`mon_agent_unknown_frames_total`) and skipped, never refused, so a
 * newer agent keeps working with an older server; a container or unit of a sample in a state (or
 * health) it does not know is counted and kept as last seen (server/hosts/decode.ts), and the agent
 * runs the checks of a poll answer it can read. The agent takes only types from here (its run-time
 * values come from agent-constants.ts): the schema library never loads in it.
 */

export {
  AGENT_PROTOCOL,
  AGENT_SILENT_AFTER_MS,
  AGENT_TIME_HEADER,
  type AgentCapability,
  agentCapabilities,
  type ContainerHealth,
  containerHealths,
  containerStates,
  exceededLimit,
  MAX_BYTES,
  MAX_CELSIUS,
  MAX_CORES,
  MAX_FRAMES_BYTES,
  MAX_INFLATED_FRAMES_BYTES,
  MAX_LATENCY_MS,
  MAX_LOAD,
  MAX_VALUE,
  MIN_CELSIUS,
  POLL_WAIT_MS,
  REQUEST_LIMITS,
  type RequestLimit,
  requestLimitNames,
  SAMPLE_EVERY_MS,
  unitStates,
} from './agent-constants.ts';

const ms = z.number().int().nonnegative();
// Bounds: agent-constants.ts says why each. (Numbers are finite: JSON's 1e309 parses as Infinity, refused.)
const bytes = z.number().nonnegative().max(MAX_BYTES);
const percent = z.number().min(0).max(100);
/** Percent of one CPU (containers, units): at most every core busy. */
const cpuPercent = z
  .number()
  .nonnegative()
  .max(100 * MAX_CORES);
const load = z.number().nonnegative().max(MAX_LOAD);
/** `used` of `total` (memory, swap): never more. */
const usage = z
  .object({ used: bytes, total: bytes })
  .refine((u) => u.used <= u.total, { message: 'must not exceed total', path: ['used'] });
const shortText = (max: number) => z.string().max(max);

export const diskSchema = z
  .object({
    /** Where it is mounted, as the host sees it (without MON_HOST_ROOT). */
    mount: shortText(4096),
    /** The block device, e.g. /dev/sda1 or /dev/mapper/vg-root. */
    device: shortText(4096),
    fstype: shortText(64),
    used: bytes,
    /** used + available (what the filesystem can hold for users; reserved blocks left out). */
    size: bytes,
  })
  .refine((d) => d.used <= d.size, { message: 'must not exceed size', path: ['used'] });
export type DiskSample = z.infer<typeof diskSchema>;

export const containerSchema = z.object({
  /** The Engine API's container id (64 hex). */
  id: shortText(128),
  /** Without the leading slash. */
  name: shortText(256),
  /** The image as the container was created from (`Config.Image`, e.g. nginx:1.27). */
  image: shortText(512),
  /** The image id it runs (`Image`, sha256:…): a new one for the same name is a deploy. */
  imageId: shortText(128),
  state: z.enum(containerStates),
  health: z.enum(containerHealths).nullable(),
  /** `RestartCount` of the Engine API: restarts by its restart policy. */
  restarts: z.number().int().nonnegative(),
  exitCode: z.number().int().nullable(),
  oomKilled: z.boolean(),
  startedAt: ms.nullable(),
  finishedAt: ms.nullable(),
  /** Percent of one CPU since the previous sample; null when not running or on the first sample. */
  cpu: cpuPercent.nullable(),
  /** Bytes in use without inactive file cache (cgroup v1 and v2); null when not running. */
  memory: bytes.nullable(),
  /** Only the labels mon reads: `mon.service`, `com.docker.compose.project`, `com.docker.compose.service`. */
  labels: z.record(z.string().max(256), z.string().max(1024)),
});
export type ContainerSample = z.infer<typeof containerSchema>;

export const unitSchema = z.object({
  /** e.g. nginx.service */
  name: shortText(256),
  state: z.enum(unitStates),
  /** systemd's sub-state (running, exited, dead, auto-restart, …). */
  subState: shortText(64),
  /** `NRestarts`: automatic restarts since the unit was last started by hand. */
  restarts: z.number().int().nonnegative(),
  /** Percent of one CPU since the previous sample; null when unknown. */
  cpu: cpuPercent.nullable(),
  /** Bytes (`MemoryCurrent`); null when unknown. */
  memory: bytes.nullable(),
});
export type UnitSample = z.infer<typeof unitSchema>;

/** One sample of the host, every 15 s. Rates are over the time since the agent's previous sample. */
export const sampleFrameSchema = z.object({
  kind: z.literal('sample'),
  ts: ms,
  /** Percent of all cores busy (total − idle − iowait − steal); null on the first sample. */
  cpu: percent.nullable(),
  /** used = MemTotal − MemAvailable (older kernels: total − free − buffers − cached). */
  memory: usage.nullable(),
  /** null without swap. */
  swap: usage.nullable(),
  /** Each disk-backed filesystem once. */
  disks: z.array(diskSchema).max(256),
  /** Over physical disks only; null on the first sample. */
  diskIo: z.object({ readBps: bytes, writeBps: bytes }).nullable(),
  /** Over physical network cards only; null on the first sample. */
  net: z.object({ rxBps: bytes, txBps: bytes }).nullable(),
  load: z.tuple([load, load, load]).nullable(),
  temperatures: z
    .array(z.object({ sensor: shortText(256), celsius: z.number().min(MIN_CELSIUS).max(MAX_CELSIUS) }))
    .max(256),
  /** null: no container runtime answered (none installed, or the socket not mounted). */
  containers: z.array(containerSchema).max(5000).nullable(),
  /** null: no systemd to ask. */
  units: z.array(unitSchema).max(10000).nullable(),
});
export type SampleFrame = z.infer<typeof sampleFrameSchema>;

/** Facts about the host and the agent, sent when the agent starts (and again every hour). */
export const helloFrameSchema = z.object({
  kind: z.literal('hello'),
  ts: ms,
  agentVersion: shortText(64),
  protocol: z.number().int().positive(),
  capabilities: z.array(shortText(64)).max(64),
  hostname: shortText(256),
  os: shortText(256),
  kernel: shortText(256),
  arch: shortText(64),
  cores: z.number().int().positive().max(MAX_CORES),
});
export type HelloFrame = z.infer<typeof helloFrameSchema>;

/** A command check of the host's checks.toml. */
export const declaredCheckSchema = z.object({
  name: nameSchema,
  service: nameSchema,
  command: z.string().min(1).max(4096),
  everyMs: z
    .number()
    .int()
    .min(10_000)
    .max(7 * 86_400_000),
  timeoutMs: z.number().int().min(100).max(120_000),
});
export type DeclaredCheck = z.infer<typeof declaredCheckSchema>;

/**
 * The command checks of the host's checks.toml whose `from` names this host, sent at start and every
 * hour (a name that was taken and has become free is added at the next one).
 */
export const declareFrameSchema = z.object({
  kind: z.literal('declare'),
  ts: ms,
  checks: z.array(declaredCheckSchema).max(MAX_DECLARED_CHECKS),
  /** Lines of checks.toml the agent could not use, in its own words (shown on the host page). */
  problems: z.array(shortText(1000)).max(MAX_DECLARED_PROBLEMS),
});
export type DeclareFrame = z.infer<typeof declareFrameSchema>;

/** One run of a check the agent ran: a server check assigned to it, or an accepted command check. */
export const runFrameSchema = z.object({
  kind: z.literal('run'),
  ts: ms,
  /** The check's id, as the poll named it. */
  id: shortText(64),
  status: z.enum(['up', 'down', 'degraded']),
  latencyMs: z.number().nonnegative().max(MAX_LATENCY_MS).nullable(),
  detail: shortText(2000),
  /** The number a command check printed. */
  value: z.number().min(-MAX_VALUE).max(MAX_VALUE).nullable().optional(),
  expiry: z
    .object({ kind: z.enum(['certificate', 'domain']), expires: ms })
    .nullable()
    .optional(),
});
export type RunFrame = z.infer<typeof runFrameSchema>;

/** The agent's recent log lines (kept to attach to incidents). */
export const logFrameSchema = z.object({
  kind: z.literal('log'),
  lines: z
    .array(z.object({ ts: ms, level: z.enum(['debug', 'info', 'warn', 'error']), text: shortText(2000) }))
    .max(1000),
});
export type LogFrame = z.infer<typeof logFrameSchema>;

/** The frame kinds this server knows, each with its schema. */
export const frameSchemas = {
  hello: helloFrameSchema,
  sample: sampleFrameSchema,
  declare: declareFrameSchema,
  run: runFrameSchema,
  log: logFrameSchema,
} as const;
export type FrameKind = keyof typeof frameSchemas;
export type AgentFrame = HelloFrame | SampleFrame | DeclareFrame | RunFrame | LogFrame;

/**
 * The body of `POST /agent/v1/frames` (JSON, `Content-Encoding: gzip`): frames oldest first. Each
 * frame is an object with a string `kind`; the server parses each by its kind's schema. `batch` names
 * the batch (a random id, the same each time the batch is sent again): the server remembers each
 * host's last `REMEMBERED_BATCHES` and answers one it already stored as stored, storing nothing twice.
 */
export const framesBodySchema = z.object({
  batch: z.string().min(1).max(64).optional(),
  frames: z.array(z.looseObject({ kind: z.string().max(64) })).max(10_000),
});
export type FramesBody = { batch?: string; frames: AgentFrame[] };
/** Batch ids the server remembers per host (a batch sent again later than that is stored again). */
export const REMEMBERED_BATCHES = 256;

/** The answer to `POST /agent/v1/frames` (200): every known frame is stored; unknown kinds are skipped. */
export type FramesAnswer = { stored: number; skipped: number };

/** A server check assigned to this agent (its `from` names the host): what it runs and how often. */
export const assignedCheckSchema = z.object({
  id: shortText(64),
  name: nameSchema,
  kind: z.enum(checkKinds),
  target: z.string().max(2048),
  method: z.enum(httpMethods).nullable(),
  headers: z.record(z.string(), z.string()),
  everyMs: z.number().int().positive(),
  timeoutMs: z.number().int().positive(),
  expect: z.array(assertionSchema),
  allowLinkLocal: z.boolean(),
  /** The values of the `${NAME}` references the check's target and headers use, from the server's environment. */
  env: z.record(z.string(), z.string()),
});
export type AssignedCheck = z.infer<typeof assignedCheckSchema>;

/**
 * The answer to `GET /agent/v1/poll?assignment=<tag>&version=<agent version>&protocol=<n>&capabilities=<a,b>`.
 * The poll answers at once when the assignment differs from `assignment`, else when it changes, else
 * after `POLL_WAIT_MS` with the same one.
 */
export const pollAnswerSchema = z.object({
  protocol: z.number().int().positive(),
  /** Tag of this assignment: sent back as `assignment` by the next poll. */
  assignment: z.string().max(128),
  /** The host's name as the server knows it. */
  host: nameSchema,
  settings: z.object({ sampleEveryMs: z.number().int().positive() }),
  /** Server checks to run from this host. */
  checks: z.array(assignedCheckSchema),
  /** Command checks of checks.toml the server accepted, with their ids for run frames. */
  commands: z.array(z.object({ id: shortText(64), name: nameSchema })),
});
export type PollAnswer = z.infer<typeof pollAnswerSchema>;
