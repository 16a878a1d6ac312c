import { formatPath } from '../app.ts';

/** `${NAME}`: NAME is letters, digits and underscores, not starting with a digit. */
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type Env = Readonly<Record<string, string | undefined>>;
export type Path = (string | number)[];
export type PathError = { path: Path; message: string };

/** The names of the environment variables `text` refers to, in order of appearance. */
export function referencedNames(text: string): string[] {
  return [...text.matchAll(reference)].map((m) => m[1]!);
}

export function hasReference(text: string): boolean {
  return referencedNames(text).length > 0;
}

/**
 * Replaces each `${NAME}` of `text` by the variable's value; `missing` lists names that are not set.
 * The http runner uses this at run time for header values, which mon.toml keeps as references.
 */
export function expandReferences(text: string, env: Env): { value: string; missing: string[] } {
  const missing: string[] = [];
  const value = text.replace(reference, (_, name: string) => {
    const v = env[name];
    if (v === undefined) {
      missing.push(name);
      return '';
    }
    return v;
  });
  return { value, missing };
}

export type Interpolated = {
  value: unknown;
  /** File path (like `alert[0].bot_token`) → the file's text, for each value that had a reference. */
  references: Map<string, string>;
  errors: PathError[];
};

/**
 * Substitutes `${NAME}` in every string of the parsed TOML tree from `env`. Values whose path
 * `keepRaw` accepts keep their reference text (they are expanded later), but their variables must
 * still be set. A missing variable is an error naming it and the path.
 */
export function interpolate(tree: unknown, env: Env, keepRaw: (path: Path) => boolean): Interpolated {
  const references = new Map<string, string>();
  const errors: PathError[] = [];
  const walk = (value: unknown, path: Path): unknown => {
    if (typeof value === 'string') {
      const names = referencedNames(value);
      if (names.length === 0) return value;
      for (const name of new Set(names)) {
        if (env[name] === undefined)
          errors.push({ path, message: `environment variable ${name} is not set` });
      }
      if (keepRaw(path)) return value;
      references.set(formatPath(path), value);
      return expandReferences(value, env).value;
    }
    if (Array.isArray(value)) return value.map((item, i) => walk(item, [...path, i]));
    if (isPlainObject(value)) {
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) out[key] = walk(item, [...path, key]);
      return out;
    }
    return value;
  };
  return { value: walk(tree, []), references, errors };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
