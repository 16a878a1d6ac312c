import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import { plainMessage } from '../../protocol/messages.ts';
import { collisions, type OutsideNames } from './collisions.ts';
import type { Env } from './env-refs.ts';
import { interpolate } from './interpolate.ts';
import { formatPath, type Path, type PathError } from './paths.ts';
import type { LiveConfig } from './sections.ts';
import { sections } from './sections.ts';
import { managedNames } from './service.ts';

export type LoadOptions = { env: Env; names?: () => OutsideNames };

export type Loaded = {
  config: LiveConfig;
  /** File path → the file's text, for values that came from `${NAME}` references (the export keeps them). */
  references: Map<string, string>;
};

export type LoadResult = ({ ok: true } & Loaded) | { ok: false; error: string };

const MAX_ERRORS = 20;

/**
 * The shape of mon.toml: every section's tables in one strict object, so that an unknown top-level key
 * is an error. Schemas check types and formats; sections check the rules between their keys.
 */
const fileSchema = z.strictObject(Object.assign({}, ...sections.map((s) => s.tables)));

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
  const keepRaw = (path: Path) => sections.some((s) => s.keepRaw?.(path) ?? false);
  const interpolated = interpolate(tree, options.env, keepRaw);
  if (interpolated.errors.length > 0) return failure(interpolated.errors);

  const parsed = fileSchema.safeParse(interpolated.value, { error: fileWords });
  if (!parsed.success) return failure(parsed.error.issues.flatMap(issueErrors));

  const errors: PathError[] = [];
  const values: Record<string, unknown> = {};
  for (const section of sections) {
    const built = section.build(parsed.data);
    values[section.key] = built.value;
    errors.push(...built.errors);
  }
  const parts = values as Omit<LiveConfig, 'managed'>;
  errors.push(...collisions(parts, options.names?.() ?? { checks: [] }));
  if (errors.length > 0) return failure(errors);
  const config: LiveConfig = { ...parts, managed: managedNames(parts) };
  return { ok: true, config, references: interpolated.references };
}

function issueErrors(issue: z.core.$ZodIssue): PathError[] {
  const path = issue.path as Path;
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ path: [...path, key], message: 'unknown key' }));
  }
  return [{ path, message: issue.message }];
}

/** mon's messages (protocol/messages.ts) in the file's words: TOML calls an object a table. */
function fileWords(issue: z.core.$ZodRawIssue): string {
  const object = issue.expected === 'object' || issue.expected === 'record';
  if (issue.code === 'invalid_type' && object && issue.input !== undefined) return 'must be a table';
  return plainMessage(issue);
}

function failure(errors: PathError[]): { ok: false; error: string } {
  const lines = errors
    .slice(0, MAX_ERRORS)
    .map((e) => (e.path.length ? `${formatPath(e.path)}: ${e.message}` : e.message));
  if (errors.length > MAX_ERRORS) lines.push(`… and ${errors.length - MAX_ERRORS} more`);
  return { ok: false, error: lines.join('\n') };
}
