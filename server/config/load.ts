import { parse, TomlError } from 'smol-toml';
import type { z } from 'zod';
import { fileAlertToChannel } from './alerts.ts';
import { fileCheckToBody } from './checks.ts';
import { collisions, dependencyErrors } from './collisions.ts';
import type { Env } from './env-refs.ts';
import { interpolate } from './interpolate.ts';
import { formatPath, type Path, type PathError } from './paths.ts';
import { type FileInput, fileSchema, type TargetKey, targetKeys } from './schema.ts';
import {
  defaultHostAlerts,
  defaultRetention,
  emptyConfig,
  type FileAlert,
  type FileCheck,
  type FileHost,
  type FileService,
  type LiveConfig,
  managedNames,
  type OutsideNames,
} from './service.ts';

export type LoadOptions = { env: Env; names?: () => OutsideNames };

export type Loaded = {
  config: LiveConfig;
  /** File path → the file's text, for values that came from `${NAME}` references (the export keeps them). */
  references: Map<string, string>;
};

export type LoadResult = ({ ok: true } & Loaded) | { ok: false; error: string };

const MAX_ERRORS = 20;

/** Parses, validates and checks the names of mon.toml as a whole. Nothing is applied here. */
export function loadConfigText(text: string, options: LoadOptions): LoadResult {
  let tree: unknown;
  try {
    tree = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const message = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      return { ok: false, error: `line ${error.line}, column ${error.column}: ${message}` };
    }
    throw error;
  }
  // Check targets and header values keep their references (reads show the reference, never the
  // value): the runners expand them when they run the check.
  const keepRaw = (path: Path) =>
    path[0] === 'check' &&
    ((path.length === 4 && path[2] === 'headers') ||
      (path.length === 3 && targetKeys.includes(path[2] as TargetKey)));
  const interpolated = interpolate(tree, options.env, keepRaw);
  if (interpolated.errors.length > 0) return failure(interpolated.errors);

  const parsed = fileSchema.safeParse(interpolated.value);
  if (!parsed.success) return failure(parsed.error.issues.flatMap(issueErrors));

  const { parts, errors } = build(parsed.data);
  errors.push(...collisions(parts, options.names?.() ?? { checks: [] }));
  if (errors.length > 0) return failure(errors);
  const config: LiveConfig = {
    server: { url: parsed.data.server?.url ?? null, trustedProxies: parsed.data.trusted_proxies },
    auth: parsed.data.auth ?? emptyConfig().auth,
    retention: { checkResultsMs: parsed.data.retention?.check_results ?? defaultRetention.checkResultsMs },
    ...parts,
    managed: managedNames(parts),
  };
  return { ok: true, config, references: interpolated.references };
}

function build(input: FileInput) {
  const errors: PathError[] = [];
  const checks: FileCheck[] = [];
  input.check.forEach((c, i) => {
    const result = fileCheckToBody(c, i);
    errors.push(...result.errors);
    if (result.check) checks.push(result.check);
  });
  const alerts: FileAlert[] = [];
  input.alert.forEach((_, i) => {
    const result = fileAlertToChannel(input.alert, i);
    errors.push(...result.errors);
    if (result.alert) alerts.push(result.alert);
  });
  const services: FileService[] = input.service.map((s) => ({
    name: s.name,
    hosts: s.hosts,
    sites: s.sites,
    dependsOn: s.depends_on,
    tier: s.tier,
  }));
  const hosts: FileHost[] = input.host.map((h) => ({
    name: h.name,
    alerts: {
      cpu: threshold(h.cpu, defaultHostAlerts.cpu),
      memory: threshold(h.memory, defaultHostAlerts.memory),
      swap: threshold(h.swap, defaultHostAlerts.swap),
      disk: threshold(h.disk, defaultHostAlerts.disk),
      temperature: threshold(h.temperature, defaultHostAlerts.temperature),
      ignoreMounts: h.ignore_mounts,
    },
  }));
  const known = new Set([...services.map((s) => s.name), ...checks.map((c) => c.body.service)]);
  errors.push(...dependencyErrors(services, known));
  return { errors, parts: { services, hosts, checks, alerts } };
}

function threshold(value: number | boolean | undefined, fallback: number | null): number | null {
  if (value === undefined || value === true) return fallback;
  return value === false ? null : value;
}

function issueErrors(issue: z.core.$ZodIssue): PathError[] {
  const path = issue.path as Path;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: [...path, key], message: 'unknown key' }));
  }
  if (issue.code === 'invalid_type' && issue.message.startsWith('Invalid input')) {
    if (/received undefined/.test(issue.message)) return [{ path, message: 'required' }];
    const noun: Record<string, string> = {
      array: 'a list',
      object: 'a table',
      string: 'a string',
      number: 'a number',
      boolean: 'true or false',
    };
    return [{ path, message: `must be ${noun[issue.expected] ?? issue.expected}` }];
  }
  return [{ path, message: issue.message }];
}

function failure(errors: PathError[]): { ok: false; error: string } {
  const lines = errors
    .slice(0, MAX_ERRORS)
    .map((e) => (e.path.length ? `${formatPath(e.path)}: ${e.message}` : e.message));
  if (errors.length > MAX_ERRORS) lines.push(`… and ${errors.length - MAX_ERRORS} more`);
  return { ok: false, error: lines.join('\n') };
}
