/**
 * `${NAME}` references to environment variables, for mon.toml values (expanded when the file loads) and
 * for check targets and header values (kept as written and expanded by the runners at each run, so that
 * secrets stay out of the stored configuration and its reads). NAME is letters, digits and `_`, not starting with a digit; any
 * other `$` is kept as written. A variable set to the empty string is set.
 */
const reference = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export type Env = Readonly<Record<string, string | undefined>>;

/** The error for a reference to a variable that is not set; it names the variable, never a value. */
export function notSet(name: string): string {
  return `environment variable ${name} is not set`;
}

/** The names of the environment variables `text` refers to, in order of appearance. */
export function referencedNames(text: string): string[] {
  return [...text.matchAll(reference)].map((m) => m[1]!);
}

/**
 * The first variable `text` refers to that `allowed` does not list, or null. Checks made in the panel
 * or through the API may use only the variables `[checks] api_env` lists.
 */
export function unlistedReference(text: string, allowed: readonly string[]): string | null {
  return referencedNames(text).find((name) => !allowed.includes(name)) ?? null;
}

/** The error for a reference an API check may not use; it names the variable, never a value. */
export function notListed(name: string): string {
  return `environment variable ${name} is not listed in [checks] api_env of mon.toml`;
}

export function hasReference(text: string): boolean {
  return referencedNames(text).length > 0;
}

/** Replaces each `${NAME}` of `text` by the variable's value; `missing` lists names that are not set. */
export function expandReferences(text: string, env: Env): { value: string; missing: string[] } {
  const missing: string[] = [];
  // Most values have no reference: no new string.
  if (!text.includes('${')) return { value: text, missing };
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
