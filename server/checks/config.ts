import { z } from 'zod';
import {
  type Assertion,
  type CheckBody,
  checkBodySchema,
  MIN_EVERY_MS,
  nameSchema,
} from '../../protocol/check.ts';
import { DAY } from '../../protocol/durations.ts';
import { durationSchema, formatDuration } from '../config/durations.ts';
import type { Path, PathError } from '../config/paths.ts';
import { type Built, configSection, type SecretSpot, type TomlTable } from '../config/section.ts';
import { fileHashPattern, hashForFile, hashFromFile, hashToken } from './ping-tokens.ts';

/**
 * The `[[check]]` section of mon.toml: checks and heartbeats, translated to the API's check body so
 * that a check means the same in the file and in the API. The export writes panel checks after the
 * file's own. Names shared with services, panel checks and hosts' checks files are ruled on in
 * config/collisions.ts.
 */

/**
 * A `[[check]]` of the file, translated to the API's check body. `index` is its position in the file.
 * A heartbeat's token comes as `ping_token` (`pingToken`) or as `ping_token_hash`; `pingTokenHash` is
 * its stored form (ping-tokens.ts) either way.
 */
export type FileCheck = {
  index: number;
  body: CheckBody;
  pingToken: string | null;
  pingTokenHash: string | null;
};

const fileAssertionSchema = z.strictObject({
  status: z
    .union([z.number().int(), z.string()], { error: 'must be a status code or a pattern such as 2xx' })
    .optional(),
  json: z.string().optional(),
  equals: z
    .union([z.string(), z.number(), z.boolean()], { error: 'must be a string, number or boolean' })
    .optional(),
  body_contains: z.string().optional(),
  body_not_contains: z.string().optional(),
  response_time_below: durationSchema({ min: 1 }).optional(),
  else: z.enum(['down', 'degraded'], { error: 'must be "down" or "degraded"' }).optional(),
});
type FileAssertion = z.infer<typeof fileAssertionSchema>;

export const targetKeys = ['url', 'tcp', 'dns', 'ping', 'domain'] as const;
export type TargetKey = (typeof targetKeys)[number];

// Targets are checked by the check body's schema, once translated: one set of rules and messages.
const fileCheckSchema = z.strictObject({
  name: nameSchema,
  service: nameSchema,
  url: z.string().optional(),
  tcp: z.string().optional(),
  dns: z.string().optional(),
  ping: z.string().optional(),
  domain: z.string().optional(),
  from: nameSchema.optional(),
  every: durationSchema({ min: MIN_EVERY_MS, max: 7 * DAY }).optional(),
  timeout: durationSchema({ min: 100, max: 120_000 }).optional(),
  method: z
    .string()
    .trim()
    .transform((v) => v.toUpperCase())
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  expect: z.array(fileAssertionSchema).optional(),
  ping_token: z
    .string()
    .regex(/^btp_[A-Za-z0-9_-]{20,200}$/, 'must be btp_ followed by at least 20 letters, digits, _ or -')
    .optional(),
  ping_token_hash: z
    .string()
    .regex(fileHashPattern, 'must be sha256: followed by 64 lowercase hex digits, as the export writes it')
    .optional(),
  cron: z.string().optional(),
  timezone: z.string().optional(),
  grace: durationSchema({ min: 0, max: 7 * DAY }).optional(),
  allow_link_local: z.boolean().optional(),
  // Accepted here only so that its refusal can say where command checks belong.
  command: z.unknown().optional(),
});
export type FileCheckInput = z.infer<typeof fileCheckSchema>;

export const checkSection = configSection({
  key: 'checks',
  tables: { check: z.array(fileCheckSchema).default([]) },
  build(input): Built<FileCheck[]> {
    const value: FileCheck[] = [];
    const errors: PathError[] = [];
    input.check.forEach((c, i) => {
      const result = fileCheckToBody(c, i);
      errors.push(...result.errors);
      if (result.check) value.push(result.check);
    });
    return { value, errors };
  },
  empty: (): FileCheck[] => [],
  toToml(value, { stored }): TomlTable {
    // A heartbeat without a token in the file keeps the URL made in the panel through its stored hash.
    const hashes = new Map(stored.map((c) => [c.body.name, c.pingTokenHash]));
    const check = [
      ...value.map((c) =>
        bodyToFileCheck(c.body, c.pingToken, c.pingTokenHash ?? hashes.get(c.body.name) ?? null),
      ),
      ...stored.filter((c) => !c.managed).map((c) => bodyToFileCheck(c.body, null, c.pingTokenHash)),
    ];
    return check.length > 0 ? { check } : {};
  },
  secrets(tree) {
    const spots: SecretSpot[] = [];
    (tree.check as TomlTable[] | undefined)?.forEach((check, i) => {
      const name = String(check.name);
      spots.push({
        path: ['check', i, 'ping_token'],
        suggested: `MON_CHECK_${name}_PING_TOKEN`,
        about: `Ping token of heartbeat ${name}`,
      });
      // Any header value may be a credential (X-Auth, X-Api, ...): all become references.
      for (const header of Object.keys((check.headers as TomlTable | undefined) ?? {})) {
        spots.push({
          path: ['check', i, 'headers', header],
          suggested: `MON_CHECK_${name}_${header}`,
          about: `Header ${header} of check ${name}`,
        });
      }
    });
    return spots;
  },
  // Targets and header values keep their references (reads show the reference, never the value): the
  // runners expand them when they run the check.
  keepRaw: (path) =>
    path[0] === 'check' &&
    ((path.length === 4 && path[2] === 'headers') ||
      (path.length === 3 && targetKeys.includes(path[2] as TargetKey))),
  names: (value) => ({
    checks: value.map((c) => c.body.name),
    services: value.map((c) => c.body.service),
  }),
});

/** API body field → mon.toml key (assertion keys included). */
const fileKeys: Record<string, string> = {
  everyMs: 'every',
  timeoutMs: 'timeout',
  graceMs: 'grace',
  bodyContains: 'body_contains',
  bodyNotContains: 'body_not_contains',
  responseTimeBelowMs: 'response_time_below',
  degraded: 'else',
  allowLinkLocal: 'allow_link_local',
};
const fileKey = (key: string) => fileKeys[key] ?? key;
const renameInMessage = (message: string) =>
  message.replace(
    /\b(everyMs|timeoutMs|graceMs|bodyContains|bodyNotContains|responseTimeBelowMs|allowLinkLocal)\b/g,
    fileKey,
  );

/**
 * Translates `[[check]]` number `index` to the API check body and validates it with the API's schema,
 * so that a check means the same in the file and in the API. Error paths name the file's keys.
 */
export function fileCheckToBody(
  input: FileCheckInput,
  index: number,
): { check?: FileCheck; errors: PathError[] } {
  const at = (...path: Path): Path => ['check', index, ...path];
  const errors: PathError[] = [];
  if (input.command !== undefined) {
    errors.push({
      path: at('command'),
      message: "command checks are declared in an agent's checks file (checks.toml), not in mon.toml",
    });
  }
  const targets = targetKeys.filter((key) => input[key] !== undefined);
  for (const key of targets.slice(1)) {
    errors.push({ path: at(key), message: `a check takes one target key; ${targets[0]} is also set` });
  }
  const targetKey: TargetKey | undefined = targets[0];
  if (!targetKey && input.every === undefined && input.cron === undefined) {
    errors.push({
      path: at(),
      message: 'needs one target key (url, tcp, dns, ping or domain), or every or cron for a heartbeat',
    });
  }
  if (errors.length > 0) return { errors };

  const kind = targetKey === undefined ? 'heartbeat' : targetKey === 'url' ? 'http' : targetKey;
  for (const key of ['ping_token', 'ping_token_hash'] as const) {
    if (input[key] !== undefined && kind !== 'heartbeat') {
      errors.push({ path: at(key), message: `only heartbeats take a ${key}` });
    }
  }
  if (input.ping_token !== undefined && input.ping_token_hash !== undefined) {
    errors.push({ path: at('ping_token_hash'), message: 'give ping_token or ping_token_hash, not both' });
  }
  const body: CheckBody = { name: input.name, service: input.service, kind };
  if (targetKey) body.target = input[targetKey]!;
  if (input.method !== undefined) body.method = input.method as CheckBody['method'];
  if (input.headers !== undefined) body.headers = input.headers;
  if (input.every !== undefined) body.everyMs = input.every;
  if (input.timeout !== undefined) body.timeoutMs = input.timeout;
  if (input.from !== undefined) body.from = input.from;
  if (input.expect !== undefined) body.expect = input.expect.map(toAssertion);
  if (input.cron !== undefined) body.cron = input.cron;
  if (input.timezone !== undefined) body.timezone = input.timezone;
  if (input.grace !== undefined) body.graceMs = input.grace;
  if (input.allow_link_local !== undefined) body.allowLinkLocal = input.allow_link_local;

  const parsed = checkBodySchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map((part) =>
        part === 'target'
          ? (targetKey ?? 'target')
          : typeof part === 'string'
            ? fileKey(part)
            : (part as number),
      );
      const message =
        issue.code === 'invalid_value' && path[0] === 'method' ? 'must be an HTTP method' : issue.message;
      errors.push({ path: at(...path), message: renameInMessage(message) });
    }
  }
  if (errors.length > 0) return { errors };
  const pingToken = input.ping_token ?? null;
  const pingTokenHash =
    pingToken !== null
      ? hashToken(pingToken)
      : input.ping_token_hash !== undefined
        ? hashFromFile(input.ping_token_hash)
        : null;
  return { check: { index, body: parsed.data!, pingToken, pingTokenHash }, errors };
}

function toAssertion(a: FileAssertion): Assertion {
  const out: Assertion = {};
  if (a.status !== undefined) out.status = a.status;
  if (a.json !== undefined) out.json = a.json;
  if (a.equals !== undefined) out.equals = a.equals;
  if (a.body_contains !== undefined) out.bodyContains = a.body_contains;
  if (a.body_not_contains !== undefined) out.bodyNotContains = a.body_not_contains;
  if (a.response_time_below !== undefined) out.responseTimeBelowMs = a.response_time_below;
  if (a.else !== undefined) out.degraded = a.else === 'degraded';
  return out;
}

/**
 * The `[[check]]` table of a check body: the inverse of `fileCheckToBody`. A heartbeat's token is
 * written as `ping_token` when known, else as `ping_token_hash` from its stored hash.
 */
export function bodyToFileCheck(
  body: CheckBody,
  pingToken: string | null,
  pingTokenHash: string | null = null,
): Record<string, unknown> {
  const out: Record<string, unknown> = { name: body.name, service: body.service };
  if (body.kind !== 'heartbeat' && body.target != null)
    out[body.kind === 'http' ? 'url' : body.kind] = body.target;
  if (body.method != null) out.method = body.method;
  if (body.from != null) out.from = body.from;
  if (body.everyMs != null) out.every = formatDuration(body.everyMs);
  if (body.timeoutMs != null) out.timeout = formatDuration(body.timeoutMs);
  if (body.cron != null) out.cron = body.cron;
  if (body.timezone != null) out.timezone = body.timezone;
  if (body.graceMs != null) out.grace = formatDuration(body.graceMs);
  if (pingToken !== null) out.ping_token = pingToken;
  else if (pingTokenHash !== null && body.kind === 'heartbeat')
    out.ping_token_hash = hashForFile(pingTokenHash);
  if (body.allowLinkLocal != null) out.allow_link_local = body.allowLinkLocal;
  if (body.headers != null && Object.keys(body.headers).length > 0) out.headers = { ...body.headers };
  if (body.expect != null && body.expect.length > 0) out.expect = body.expect.map(fromAssertion);
  return out;
}

function fromAssertion(a: Assertion): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (a.status !== undefined) out.status = a.status;
  if (a.json !== undefined) out.json = a.json;
  // TOML has no null: an `equals = null` assertion of the API is written as the JSON text "null".
  if (a.equals !== undefined) out.equals = a.equals ?? 'null';
  if (a.bodyContains !== undefined) out.body_contains = a.bodyContains;
  if (a.bodyNotContains !== undefined) out.body_not_contains = a.bodyNotContains;
  if (a.responseTimeBelowMs !== undefined) out.response_time_below = formatDuration(a.responseTimeBelowMs);
  if (a.degraded !== undefined) out.else = a.degraded ? 'degraded' : 'down';
  return out;
}

/** `[checks]`: settings of all checks. */
export type CheckSettings = {
  /**
   * `api_env`: the environment variables that checks made in the panel or through the API may use as
   * `${NAME}`. Checks of mon.toml may use any: the file is the operator's, the API is open to every
   * `write` token, and a reference sends the variable's value wherever the check's target points.
   */
  apiEnv: string[];
};

const envName = z
  .string({ error: 'must be the name of an environment variable' })
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable: letters, digits and _');

const checksTableWords = 'must be a table: [checks] holds settings of all checks, each check is a [[check]]';

export const checkSettingsSection = configSection({
  key: 'checkSettings',
  tables: {
    checks: z
      .strictObject(
        { api_env: z.array(envName, { error: 'must be a list of environment variable names' }).default([]) },
        { error: (issue) => (issue.code === 'invalid_type' ? checksTableWords : undefined) },
      )
      .optional(),
  },
  build: (input): Built<CheckSettings> => ({
    value: { apiEnv: [...new Set(input.checks?.api_env ?? [])] },
    errors: [],
  }),
  empty: (): CheckSettings => ({ apiEnv: [] }),
  toToml: (value): TomlTable => (value.apiEnv.length > 0 ? { checks: { api_env: [...value.apiEnv] } } : {}),
});
