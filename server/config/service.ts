import type { ConfigStatus } from '../../protocol/config.ts';
import type { OutsideNames } from './collisions.ts';
import { type ConfigExport, exportConfig } from './export.ts';
import type { ManagedNames, StoredChannel, StoredCheck, StoredHost } from './section.ts';
import type { LiveConfig } from './sections.ts';
import { sections } from './sections.ts';

export type { OutsideNames } from './collisions.ts';
export type { ManagedNames, StoredCheck } from './section.ts';
export type { LiveConfig } from './sections.ts';

/** What the check engine provides to the config service; each defaults to "none". */
export type ConfigProviders = {
  names?: () => OutsideNames;
  storedChecks?: () => StoredCheck[];
  /** Channels made in the panel, for the export. */
  storedChannels?: () => StoredChannel[];
  /** Hosts added through the API or by agents, with their thresholds, for the export. */
  storedHosts?: () => StoredHost[];
};

/**
 * Which configuration `current()` is: the file's (`file`, also an empty one for a missing file), the
 * last one that loaded while the file has an error (`lastGood`), or an empty one because the file was
 * bad at start and no earlier file loads (`empty`).
 */
export type ConfigInForce = ConfigStatus['inForce'];

export interface ConfigService {
  current(): LiveConfig;
  /** The current config-file error, or null when the file is fine. */
  error(): string | null;
  inForce(): ConfigInForce;
  /** Calls `listener` after each successful reload. Returns the unsubscribe function. */
  onChange(listener: (config: LiveConfig) => void): () => void;
  /** Re-reads and re-checks the file now, also when unchanged but rejected (e.g. after a panel check
   * that collided with it was deleted). */
  reload(): void;
  /** The whole configuration (file and panel objects) as mon.toml text, secrets as `${NAME}`. */
  export(): ConfigExport;
  close(): void;
}

/** The names each section claims (checks, services, hosts, alerts), merged. */
export function managedNames(config: Omit<LiveConfig, 'managed'>): ManagedNames {
  const names: { [Kind in keyof ManagedNames]: Set<string> } = {
    checks: new Set(),
    services: new Set(),
    hosts: new Set(),
    alerts: new Set(),
  };
  const values = config as Record<string, unknown>;
  for (const section of sections) {
    const claims = section.names?.(values[section.key]) ?? {};
    for (const kind of Object.keys(claims) as (keyof ManagedNames)[]) {
      for (const name of claims[kind] ?? []) names[kind].add(name);
    }
  }
  return names;
}

/** The configuration of an empty (or missing) mon.toml: each section's `empty`. */
export function emptyConfig(): LiveConfig {
  const parts = Object.fromEntries(sections.map((s) => [s.key, s.empty()])) as Omit<LiveConfig, 'managed'>;
  return { ...parts, managed: managedNames(parts) };
}

/** A fixed configuration, for tests that do not involve mon.toml. */
export function staticConfig(
  config: Partial<LiveConfig> = {},
  providers: ConfigProviders = {},
): ConfigService {
  const base = { ...emptyConfig(), ...config };
  const value: LiveConfig = { ...base, managed: config.managed ?? managedNames(base) };
  return {
    current: () => value,
    error: () => null,
    inForce: () => 'file',
    onChange: () => () => {},
    reload: () => {},
    export: () =>
      exportConfig(
        value,
        new Map(),
        providers.storedChecks?.() ?? [],
        providers.storedChannels?.() ?? [],
        providers.storedHosts?.() ?? [],
      ),
    close: () => {},
  };
}
