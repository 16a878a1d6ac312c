import { Cron } from 'croner';
import { z } from 'zod';
import {
  headerNameProblem,
  headerValueProblem,
  hideHeaderValues,
  keepStoredHeaders,
  MAX_HEADERS,
} from './headers.ts';
import { allowedAssertions, type CheckKind, checkKinds } from './kinds.ts';
import {
  connectingKinds,
  isHostname,
  linkLocalTargetProblem,
  referencedTargetProblem,
  targetProblem,
} from './targets.ts';
import { nameSchema } from './text.ts';
// mon's words for every issue a schema here leaves to the fallback (unknown fields among them).
import './messages.ts';

/**
 * The check body: one schema for `POST/PUT /api/v1/checks`, `[[check]]` in mon.toml (after the file's
 * keys are translated) and MCP drafts. Nullable fields may be omitted; null selects the default.
 */

export {
  allowedAssertions,
  type CheckKind,
  checkKinds,
  hideHeaderValues,
  isHostname,
  keepStoredHeaders,
  nameSchema,
  targetProblem,
};

export const MIN_EVERY_MS = 10_000;
export const DEFAULT_EVERY_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Domain registrations change slowly; RDAP servers rate-limit. */
export const DOMAIN_EVERY_MS = 6 * 3600_000;
export const DEFAULT_GRACE_MS = 5 * 60_000;
export const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** `headers` of a check body; a null value keeps the stored one on PUT (reads never show literal values). */
export const headersSchema = z
  .record(z.string(), z.string({ error: 'must be text, or null to keep the stored value' }).nullable(), {
    error: 'must be an object of header names and values',
  })
  .superRefine((headers, ctx) => {
    const names = Object.keys(headers);
    if (names.length > MAX_HEADERS)
      ctx.addIssue({ code: 'custom', message: `at most ${MAX_HEADERS} headers` });
    const seen = new Set<string>();
    for (const name of names) {
      const problem =
        headerNameProblem(name) ??
        (seen.has(name.toLowerCase()) ? 'given twice (header names ignore case)' : null) ??
        (headers[name] == null ? null : headerValueProblem(headers[name]));
      seen.add(name.toLowerCase());
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
    }
  });

const statusWords = 'must be a status code from 100 to 599 or a pattern such as 2xx';
const statusPattern = z.union(
  [
    z.number({ error: statusWords }).int().min(100).max(599),
    z.string({ error: statusWords }).regex(/^[1-5]xx$/),
  ],
  { error: statusWords },
);

/** The keys that say what an assertion tests; each assertion takes exactly one. */
const assertionKeys = ['status', 'bodyContains', 'bodyNotContains', 'json', 'responseTimeBelowMs'] as const;

/** What an object must be; unknown fields keep the shared wording (protocol/messages.ts), which names them. */
const unknownFields = (what: string) => (issue: z.core.$ZodRawIssue) =>
  issue.code === 'unrecognized_keys' ? undefined : `must be ${what}`;

const bodyText = () => z.string({ error: 'must be text of 1 to 10000 characters' }).min(1).max(10_000);

export const assertionSchema = z
  .strictObject(
    {
      status: statusPattern.optional(),
      bodyContains: bodyText().optional(),
      bodyNotContains: bodyText().optional(),
      json: z
        .string({ error: 'must be a JSON path such as $.status or data[0].ok' })
        .regex(/^\$(\.[\w-]+|\[\d+\])*$|^[\w-]+(\.[\w-]+|\[\d+\])*$/)
        .optional(),
      // No null: mon.toml cannot write it, and a check must mean the same after an export and a load.
      equals: z
        .union([z.string(), z.number(), z.boolean()], {
          error: 'must be a string, a number or true or false',
        })
        .optional(),
      responseTimeBelowMs: z
        .number({ error: 'must be a whole number of milliseconds from 1 to 600000' })
        .int()
        .positive()
        .max(600_000)
        .optional(),
      degraded: z.boolean({ error: 'must be true or false' }).optional(),
    },
    { error: unknownFields('an assertion object such as {"status": 200}') },
  )
  .superRefine((a, ctx) => {
    const given = assertionKeys.filter((key) => a[key] !== undefined);
    // `equals` goes with `json`, or stands alone (a DNS answer equals the value).
    const alone = given.length === 0 && a.equals !== undefined;
    if (given.length > 1 || (given.length === 0 && !alone)) {
      ctx.addIssue({
        code: 'custom',
        message: `an assertion takes exactly one of ${assertionKeys.join(', ')}, or equals`,
      });
    } else if (a.equals !== undefined && given.length === 1 && given[0] !== 'json') {
      ctx.addIssue({ code: 'custom', path: ['equals'], message: 'equals goes with json, or alone' });
    }
  });
export type Assertion = z.infer<typeof assertionSchema>;

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** Milliseconds within bounds, each bound with its own words. */
const milliseconds = (min: number, max: number, maxWords: string) =>
  z
    .number({ error: 'must be a whole number of milliseconds' })
    .int()
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max} (${maxWords})`);

export const checkBodySchema = z
  .strictObject(
    {
      name: nameSchema,
      service: nameSchema,
      kind: z.enum(checkKinds, {
        error: (issue) =>
          issue.input === undefined ? 'required' : `must be one of ${checkKinds.join(', ')}`,
      }),
      target: nullable(
        z
          .string({ error: 'must be text: a URL, host:port or host name' })
          .trim()
          .min(1, 'must not be empty')
          .max(2048, 'must be at most 2048 characters'),
      ),
      method: nullable(z.enum(httpMethods, { error: `must be one of ${httpMethods.join(', ')}` })),
      headers: nullable(headersSchema),
      everyMs: nullable(milliseconds(MIN_EVERY_MS, 7 * 86_400_000, '7 days')),
      timeoutMs: nullable(milliseconds(100, 120_000, '2 minutes')),
      from: nullable(nameSchema),
      expect: nullable(
        z
          .array(assertionSchema, { error: 'must be a list of assertions' })
          .max(20, 'must have at most 20 assertions'),
      ),
      cron: nullable(
        z
          .string({ error: 'must be a cron expression (text)' })
          .trim()
          .min(1, 'must not be empty')
          .max(200, 'must be at most 200 characters'),
      ),
      timezone: nullable(
        z
          .string({ error: 'must be an IANA time zone such as Europe/Berlin' })
          .trim()
          .min(1, 'must not be empty')
          .max(64, 'must be at most 64 characters'),
      ),
      graceMs: nullable(milliseconds(0, 7 * 86_400_000, '7 days')),
      // Reaching link-local addresses (where cloud metadata services answer) is a choice of the check.
      allowLinkLocal: nullable(z.boolean({ error: 'must be true or false' })),
      // Accepted only so that its refusal can name the field: command checks live in an agent's checks file.
      command: z.unknown().optional(),
    },
    { error: unknownFields('a check object') },
  )
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.command !== undefined) issue('command', "command checks are declared in the agent's checks.toml");
    const has = (v: unknown) => v !== undefined && v !== null;
    if (has(c.allowLinkLocal) && !connectingKinds.includes(c.kind))
      issue('allowLinkLocal', 'only http, tcp and ping checks connect to their target');
    if (c.kind === 'heartbeat') {
      for (const key of ['target', 'method', 'headers', 'timeoutMs', 'from', 'expect'] as const) {
        if (has(c[key]) && !(key === 'expect' && c.expect?.length === 0))
          issue(key, 'not accepted for heartbeats');
      }
      if (has(c.everyMs) === has(c.cron))
        issue(has(c.cron) ? 'cron' : 'everyMs', 'a heartbeat takes everyMs or cron');
      const zoneOk = !has(c.timezone) || validTimeZone(c.timezone!);
      if (!zoneOk) issue('timezone', 'must be an IANA time zone');
      if (has(c.cron) && zoneOk) {
        const problem = cronProblem(c.cron!, c.timezone ?? 'UTC');
        if (problem) issue('cron', problem);
      }
      return;
    }
    for (const key of ['cron', 'timezone', 'graceMs'] as const) {
      if (has(c[key])) issue(key, 'only heartbeats take this');
    }
    if (!has(c.target)) return issue('target', 'required for this kind');
    const targetError = referencedTargetProblem(c.kind, c.target!);
    if (targetError) issue('target', targetError);
    else if (!c.allowLinkLocal) {
      const refusal = linkLocalTargetProblem(c.kind, c.target!);
      if (refusal) issue('target', `${refusal}; set allowLinkLocal to true to check it`);
    }
    if (c.kind !== 'http') {
      if (has(c.method)) issue('method', 'only http checks take a method');
      if (has(c.headers)) issue('headers', 'only http checks take headers');
    }
    if (c.kind === 'domain') {
      if (has(c.everyMs)) issue('everyMs', 'not accepted for domain checks');
      if (has(c.from)) issue('from', 'not accepted for domain checks');
    }
    if (has(c.timeoutMs) && has(c.everyMs) && c.timeoutMs! > c.everyMs!)
      issue('timeoutMs', 'must not exceed everyMs');
    c.expect?.forEach((a, i) => {
      if (c.method === 'HEAD') {
        for (const key of ['bodyContains', 'bodyNotContains', 'json', 'equals'] as const) {
          if (a[key] !== undefined) {
            ctx.addIssue({ code: 'custom', path: ['expect', i, key], message: 'a HEAD request has no body' });
          }
        }
      }
      const allowed = allowedAssertions[c.kind];
      for (const key of Object.keys(a) as (keyof Assertion)[]) {
        if (key !== 'degraded' && !allowed.includes(key)) {
          ctx.addIssue({
            code: 'custom',
            path: ['expect', i, key],
            message: `not accepted for ${c.kind} checks`,
          });
        }
      }
    });
  });

export type CheckBody = z.infer<typeof checkBodySchema>;

/** A check with defaults applied: what the engine runs. */
export type CheckDefinition = {
  name: string;
  service: string;
  kind: CheckKind;
  target: string | null;
  method: (typeof httpMethods)[number] | null;
  headers: Record<string, string>;
  everyMs: number;
  timeoutMs: number;
  from: string | null;
  expect: Assertion[];
  cron: string | null;
  timezone: string;
  graceMs: number;
  /** Whether runs may connect to link-local and cloud-metadata addresses. */
  allowLinkLocal: boolean;
};

/**
 * A command check of a host's checks.toml as the server stores it (docs/checks.md): its agent runs
 * `command` and reports the runs. Never a body of the API or of mon.toml, which refuse `command`.
 */
export type CommandBody = {
  name: string;
  service: string;
  kind: 'command';
  command: string;
  /** The host whose agent declared it and runs it. */
  from: string;
  everyMs: number;
  timeoutMs: number;
};

/** What a stored check holds: a body of the API or mon.toml, or a host's command check. */
export type StoredCheckBody = CheckBody | CommandBody;
export type StoredCheckKind = StoredCheckBody['kind'];
export const storedCheckKinds: readonly StoredCheckKind[] = [...checkKinds, 'command'];

/** A command check's definition: the server never runs it (no runner takes it), its agent does. */
export type CommandDefinition = Omit<CheckDefinition, 'kind'> & { kind: 'command'; command: string };

/** The definition of any stored check: `withDefaults` for checks of the API and mon.toml. */
export function definitionOf(body: StoredCheckBody): CheckDefinition | CommandDefinition {
  if (body.kind !== 'command') return withDefaults(body);
  return {
    name: body.name,
    service: body.service,
    kind: 'command',
    command: body.command,
    target: null,
    method: null,
    headers: {},
    everyMs: body.everyMs,
    timeoutMs: body.timeoutMs,
    from: body.from,
    expect: [],
    cron: null,
    timezone: 'UTC',
    graceMs: 0,
    allowLinkLocal: false,
  };
}

export function withDefaults(body: CheckBody): CheckDefinition {
  const heartbeat = body.kind === 'heartbeat';
  return {
    name: body.name,
    service: body.service,
    kind: body.kind,
    target: body.target ?? null,
    method: body.kind === 'http' ? (body.method ?? 'GET') : null,
    headers: Object.fromEntries(
      Object.entries(body.headers ?? {}).filter((entry): entry is [string, string] => entry[1] !== null),
    ),
    everyMs: body.kind === 'domain' ? DOMAIN_EVERY_MS : (body.everyMs ?? DEFAULT_EVERY_MS),
    timeoutMs: Math.min(body.timeoutMs ?? DEFAULT_TIMEOUT_MS, body.everyMs ?? Number.POSITIVE_INFINITY),
    from: body.from ?? null,
    expect: body.expect ?? [],
    cron: heartbeat ? (body.cron ?? null) : null,
    timezone: heartbeat ? (body.timezone ?? 'UTC') : 'UTC',
    graceMs: heartbeat ? (body.graceMs ?? DEFAULT_GRACE_MS) : 0,
    allowLinkLocal: body.allowLinkLocal ?? false,
  };
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** Why `expr` is not a usable five-field cron expression in `timezone`, or null (no seconds field: runs are at least a minute apart). */
export function cronProblem(expr: string, timezone: string): string | null {
  let cron: Cron;
  try {
    cron = new Cron(expr, { timezone, paused: true, mode: '5-part' });
  } catch {
    // Not croner's message: it quotes the value, which may have come from a secret `${NAME}`.
    return 'must be a cron expression with five fields: minute hour day-of-month month day-of-week';
  }
  return cron.nextRun() ? null : 'never matches a date';
}
