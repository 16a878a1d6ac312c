/**
 * `${NAME}` references in check header values, expanded from the server's environment so that secrets
 * stay out of the configuration. Only `${NAME}` with NAME made of letters, digits and `_` is expanded;
 * any other `$` is kept as written.
 */
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type Expanded = { ok: true; value: string } | { ok: false; missing: string };

export function expandEnvRefs(value: string, env: Readonly<Record<string, string | undefined>>): Expanded {
  let missing: string | null = null;
  const out = value.replace(reference, (_, name: string) => {
    const found = env[name];
    if (found === undefined) missing ??= name;
    return found ?? '';
  });
  return missing === null ? { ok: true, value: out } : { ok: false, missing };
}

/** Expands every value of a record; the first missing variable stops it. */
export function expandAll(
  values: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): { ok: true; values: Record<string, string> } | { ok: false; missing: string } {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values)) {
    const expanded = expandEnvRefs(value, env);
    if (!expanded.ok) return expanded;
    out[key] = expanded.value;
  }
  return { ok: true, values: out };
}
