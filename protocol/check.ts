import { Cron } from 'croner';
import { z } from 'zod';
import { allowedAssertions, type CheckKind, checkKinds } from './kinds.ts';

/**
 * The check body: one schema for `POST/PUT /api/v1/checks`, `[[check]]` in mon.toml (after the file's
 * keys are translated) and MCP drafts. Nullable fields may be omitted; null selects the default.
 */

export { allowedAssertions, type CheckKind, checkKinds };

export const MIN_EVERY_MS = 10_000;
export const DEFAULT_EVERY_MS = 60_000;
export const DEFAULT_TIMEOUT_MS = 10_000;
/** Domain registrations change slowly; RDAP servers rate-limit. */
export const DOMAIN_EVERY_MS = 6 * 3600_000;
export const DEFAULT_GRACE_MS = 5 * 60_000;
export const httpMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Names of checks, heartbeats and services: shown in the panel and used in URLs. */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(100, 'must be at most 100 characters')
  .regex(/^[^/\\?#\p{Cc}\p{Cf}]+$/u, 'must not contain /, \\, ?, # or control or format characters');

const statusPattern = z.union([
  z.number().int().min(100).max(599),
  z.string().regex(/^[1-5]xx$/, 'must be a status code or a pattern such as 2xx'),
]);

/** The keys that say what an assertion tests; each assertion takes exactly one. */
const assertionKeys = ['status', 'bodyContains', 'bodyNotContains', 'json', 'responseTimeBelowMs'] as const;

export const assertionSchema = z
  .strictObject({
    status: statusPattern.optional(),
    bodyContains: z.string().min(1).max(10_000).optional(),
    bodyNotContains: z.string().min(1).max(10_000).optional(),
    json: z
      .string()
      .regex(
        /^\$(\.[\w-]+|\[\d+\])*$|^[\w-]+(\.[\w-]+|\[\d+\])*$/,
        'must be a JSON path such as $.status or data[0].ok',
      )
      .optional(),
    // No null: mon.toml cannot write it, and a check must mean the same after an export and a load.
    equals: z.union([z.string(), z.number(), z.boolean()]).optional(),
    responseTimeBelowMs: z.number().int().positive().max(600_000).optional(),
    degraded: z.boolean().optional(),
  })
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

export const checkBodySchema = z
  .strictObject({
    name: nameSchema,
    service: nameSchema,
    kind: z.enum(checkKinds),
    target: nullable(z.string().trim().min(1).max(2048)),
    method: nullable(z.enum(httpMethods)),
    headers: nullable(
      z
        .record(
          z.string().regex(/^[!#$%&'*+.^_`|~\w-]{1,100}$/),
          // null keeps the stored value on PUT: reads never show literal header values.
          z
            .string()
            .max(8192)
            .regex(/^[^\r\n\0]*$/, 'must not contain line breaks')
            .nullable(),
          {
            error: (issue) =>
              issue.code === 'invalid_key' ? 'must be a header name (letters, digits and - only)' : undefined,
          },
        )
        .refine((h) => Object.keys(h).length <= 50, 'at most 50 headers'),
    ),
    everyMs: nullable(
      z
        .number()
        .int()
        .min(MIN_EVERY_MS, 'must be at least 10000')
        .max(7 * 86_400_000),
    ),
    timeoutMs: nullable(z.number().int().min(100).max(120_000)),
    from: nullable(nameSchema),
    expect: nullable(z.array(assertionSchema).max(20)),
    cron: nullable(z.string().trim().min(1).max(200)),
    timezone: nullable(z.string().trim().min(1).max(64)),
    graceMs: nullable(
      z
        .number()
        .int()
        .min(0)
        .max(7 * 86_400_000),
    ),
    // Accepted only so that its refusal can name the field: command checks live in an agent's checks file.
    command: z.unknown().optional(),
  })
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.command !== undefined) issue('command', "command checks are declared in the agent's checks.toml");
    const has = (v: unknown) => v !== undefined && v !== null;
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

/**
 * Reads never show literal header values (they often hold credentials): each becomes null, which a
 * PUT sends back to keep the stored value. Values that only reference `${NAME}` stay visible.
 */
export function hideHeaderValues(body: CheckBody): CheckBody {
  if (!body.headers) return body;
  const headers = Object.fromEntries(
    Object.entries(body.headers).map(([name, value]) => [
      name,
      value !== null && isReference(value) ? value : null,
    ]),
  );
  return { ...body, headers };
}

/** Fills header values sent as null from `stored`; returns the name of a header with nothing to keep. */
export function keepStoredHeaders(
  body: CheckBody,
  stored: CheckBody | null,
): { body: CheckBody; missing: string | null } {
  if (!body.headers) return { body, missing: null };
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(body.headers)) {
    const kept = value ?? stored?.headers?.[name] ?? null;
    if (kept === null) return { body, missing: name };
    headers[name] = kept;
  }
  return { body: { ...body, headers }, missing: null };
}

function isReference(value: string): boolean {
  return /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(value.trim());
}

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
};

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
  };
}

const hostnamePattern =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

export function isHostname(value: string): boolean {
  return hostnamePattern.test(value);
}

function isIp(value: string): boolean {
  return /^(\d{1,3})(\.\d{1,3}){3}$/.test(value) || (value.includes(':') && /^[0-9a-f:.]+$/i.test(value));
}

/** `${NAME}`: a reference to an environment variable of the server (see server/config/env-refs.ts). */
const referencePattern = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/g;

/**
 * Why `target` is not valid for `kind`, or null. `${NAME}` references are filled in when the check runs,
 * which checks the result again. Here a target made of references only is accepted, and one with
 * references must be valid with each replaced by `x` (a host, a path) or by `1` (a port); a URL may
 * start with a reference that holds its scheme and host (`${BASE}/health`).
 */
function referencedTargetProblem(kind: CheckKind, target: string): string | null {
  if (!target.includes('${')) return targetProblem(kind, target);
  if (target.replace(referencePattern, '') === '') return null;
  const candidates = ['x', '1'].flatMap((placeholder) => {
    const filled = target.replace(referencePattern, placeholder);
    return kind === 'http' && target.startsWith('${') ? [filled, `http://${filled}`] : [filled];
  });
  if (candidates.some((candidate) => targetProblem(kind, candidate) === null)) return null;
  return targetProblem(kind, candidates[0]!);
}

/** Why `target`, with no references left, is not valid for `kind`, or null. */
export function targetProblem(kind: CheckKind, target: string): string | null {
  switch (kind) {
    case 'http': {
      let url: URL;
      try {
        url = new URL(target);
      } catch {
        return 'must be an http:// or https:// URL';
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
      return null;
    }
    case 'tcp': {
      const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s]+)):(\d{1,5})$/i.exec(target);
      if (!m || Number(m[3]) < 1 || Number(m[3]) > 65535) return 'must be host:port';
      const host = m[1] ?? m[2]!;
      return isHostname(host) || isIp(host) ? null : 'must be host:port';
    }
    case 'dns':
      if (isIp(target)) return 'must be a DNS name, not an IP address';
      return isHostname(target) ? null : 'must be a DNS name';
    case 'ping':
      return isHostname(target) || isIp(target) ? null : 'must be a host name or an IP address';
    case 'domain':
      return isHostname(target) && target.includes('.') && !isIp(target)
        ? null
        : 'must be a registered domain such as example.com';
    case 'heartbeat':
      return null;
  }
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
