import { parse, TomlError } from 'smol-toml';
import { z } from 'zod';
import type { Env } from '../../protocol/env-refs.ts';
import { plainMessage } from '../../protocol/messages.ts';
import { collisions, type OutsideNames } from './collisions.ts';
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

/**
 * Parses, validates and checks the names of mon.toml as a whole. Nothing is applied here. A syntax
 * error stops at once; otherwise the problems of every table are gathered: missing variables and schema
 * errors, then the rules of each section and across sections for the tables without such errors.
 */
export function loadConfigText(text: string, options: LoadOptions): LoadResult {
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    if (error instanceof TomlError) {
      const message = error.message.split('\n')[0]!.replace(/^Invalid TOML document: /, '');
      return { ok: false, error: `line ${error.line}, column ${error.column}: ${message}` };
    }
    throw error;
  }
  const keepRaw = (path: Path) => sections.some((s) => s.keepRaw?.(path) ?? false);
  const interpolated = interpolate(parsed, options.env, keepRaw);
  const tree = interpolated.value as Table;
  const valid = validTables(tree, interpolated.errors);
  if (!valid.data) return failure(valid.errors);

  const errors = [...valid.errors];
  const values: Record<string, unknown> = {};
  for (const section of sections) {
    const built = section.build(valid.data);
    values[section.key] = built.value;
    errors.push(...built.errors.map((e) => ({ ...e, path: valid.original(e.path) })));
  }
  const parts = values as Omit<LiveConfig, 'managed'>;
  errors.push(
    ...collisions(parts, options.names?.() ?? { checks: [] }, {
      at: (table, i) => valid.original([table, i])[1] as number,
      alsoServices: servicesAt(
        tree,
        errors.map((e) => e.path),
      ),
    }),
  );
  if (errors.length > 0) return failure(errors);
  const config: LiveConfig = { ...parts, managed: managedNames(parts) };
  return { ok: true, config, references: interpolated.references };
}

type Table = Record<string, unknown>;

/**
 * The file's tables that pass the schema, with every error found on the way. A table at fault (an
 * item of a list such as `check[2]`, or a whole key such as `[server]`) is left out and the rest is
 * checked again, so that the section rules and collisions still judge the others. `original` turns a
 * path into the remaining tables back into the file's path.
 */
function validTables(
  tree: Table,
  initial: PathError[],
): {
  data: z.output<typeof fileSchema> | null;
  errors: PathError[];
  original: (path: Path) => Path;
} {
  const errors = [...initial];
  const droppedKeys = new Set<string>();
  const droppedItems = new Map<string, Set<number>>();
  /** Leaves out the table at `path`; false when it already was (or the path names no table). */
  const drop = (path: Path): boolean => {
    const [key, index] = path;
    if (typeof key !== 'string' || droppedKeys.has(key)) return false;
    if (Array.isArray(tree[key]) && typeof index === 'number') {
      const items = droppedItems.get(key) ?? new Set<number>();
      if (items.has(index)) return false;
      droppedItems.set(key, items.add(index));
    } else droppedKeys.add(key);
    return true;
  };
  for (const e of initial) drop(e.path);

  let kept = new Map<string, number[]>();
  const original = (path: Path): Path => {
    const [key, index, ...rest] = path;
    const positions = typeof key === 'string' ? kept.get(key) : undefined;
    return positions && typeof index === 'number' ? [key!, positions[index]!, ...rest] : path;
  };
  for (;;) {
    const input: Table = {};
    kept = new Map();
    for (const [key, value] of Object.entries(tree)) {
      if (droppedKeys.has(key)) continue;
      const items = droppedItems.get(key);
      if (!items || !Array.isArray(value)) {
        input[key] = value;
        continue;
      }
      const positions = value.flatMap((_, i) => (items.has(i) ? [] : [i]));
      kept.set(key, positions);
      input[key] = positions.map((i) => value[i]);
    }
    const parsed = fileSchema.safeParse(input, { error: fileWords });
    if (parsed.success) return { data: parsed.data, errors, original };
    let progress = false;
    for (const found of parsed.error.issues.flatMap(issueErrors)) {
      const error = { ...found, path: original(found.path) };
      errors.push(error);
      progress = drop(error.path) || progress;
    }
    if (!progress) return { data: null, errors, original };
  }
}

/**
 * The service names given by the `[[check]]` and `[[service]]` tables at these paths: tables with
 * errors are not in the built configuration, yet a `depends_on` naming their service is no mistake.
 */
function servicesAt(tree: Table, paths: Path[]): Set<string> {
  const field: Record<string, string> = { check: 'service', service: 'name' };
  const names = new Set<string>();
  for (const [key, index] of paths) {
    if (typeof key !== 'string' || typeof index !== 'number' || !field[key]) continue;
    const value = ((tree[key] as unknown[] | undefined)?.[index] as Table | undefined)?.[field[key]];
    if (typeof value === 'string') names.add(value);
  }
  return names;
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

/** The error text: one line per problem, in the order of the file's sections (the schema's keys), then
 * of the tables of a list; at most MAX_ERRORS lines and how many more there are. */
function failure(errors: PathError[]): { ok: false; error: string } {
  const keys = Object.keys(fileSchema.shape);
  const rank = (path: Path) => {
    const at = keys.indexOf(String(path[0]));
    return at === -1 ? keys.length : at;
  };
  const index = (path: Path) => (typeof path[1] === 'number' ? path[1] : -1);
  const ordered = [...errors].sort((a, b) => rank(a.path) - rank(b.path) || index(a.path) - index(b.path));
  const lines = ordered
    .slice(0, MAX_ERRORS)
    .map((e) => (e.path.length ? `${formatPath(e.path)}: ${e.message}` : e.message));
  if (errors.length > MAX_ERRORS) lines.push(`… and ${errors.length - MAX_ERRORS} more`);
  return { ok: false, error: lines.join('\n') };
}
