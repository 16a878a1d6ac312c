import { type Env, expandReferences, notSet, referencedNames } from '../../protocol/env-refs.ts';
import { formatPath, type Path, type PathError } from './paths.ts';

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
        if (env[name] === undefined) errors.push({ path, message: notSet(name) });
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
