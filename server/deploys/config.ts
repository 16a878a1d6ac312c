import { z } from 'zod';
import { type Env, expandReferences } from '../../protocol/env-refs.ts';
import { type Built, configSection, type TomlTable } from '../config/section.ts';

/**
 * The `[codehost]` table of mon.toml: the code-host webhook (`POST /hooks/codehost`).
 *
 *   [codehost]
 *   secret = "${WEBHOOK_SECRET}"   # the webhook's secret, always from the environment
 *
 * The secret is kept as its `${NAME}` reference and expanded when a delivery is checked, so its value
 * is never part of the configuration, its reads or its export. Which repository belongs to which
 * service is `repository` of `[[service]]` (config/core.ts).
 */

export type CodehostSettings = {
  /** The `${NAME}` reference of the secret as written, or null: then the webhook route is unknown. */
  secret: string | null;
};

const onlyReference = /^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/;

const codehostSchema = z.strictObject({
  secret: z
    .string()
    .trim()
    .regex(
      onlyReference,
      `must be a reference to an environment variable such as "\${WEBHOOK_SECRET}": the secret stays out of mon.toml`,
    ),
});

const secretPath = ['codehost', 'secret'];

export const codehostSection = configSection({
  key: 'codehost',
  tables: { codehost: codehostSchema.optional() },
  build: (input): Built<CodehostSettings> => ({
    value: { secret: input.codehost?.secret ?? null },
    errors: [],
  }),
  empty: (): CodehostSettings => ({ secret: null }),
  toToml: (value): TomlTable => (value.secret === null ? {} : { codehost: { secret: value.secret } }),
  // The reference is exported as written; this names what its variable holds.
  secrets: (tree) =>
    (tree.codehost as TomlTable | undefined)?.secret === undefined
      ? []
      : [{ path: secretPath, suggested: 'MON_CODEHOST_SECRET', about: 'Secret of the code-host webhook' }],
  keepRaw: (path) => path.length === 2 && path[0] === secretPath[0] && path[1] === secretPath[1],
});

/** The webhook's secret from the environment, or null when none is set (or it is empty). */
export function codehostSecret(settings: CodehostSettings, env: Env): string | null {
  if (settings.secret === null) return null;
  const { value, missing } = expandReferences(settings.secret, env);
  return missing.length > 0 || value === '' ? null : value;
}
