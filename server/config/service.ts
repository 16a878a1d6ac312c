import type { CheckBody } from '../../protocol/check.ts';
import { type AuthConfig, authConfigSchema } from '../auth/config.ts';

/**
 * The live configuration: the last good mon.toml merged with what the server needs to know of it.
 * Readers call `current()` each time they need a value so that a reload takes effect at once.
 */
export type ServerSettings = {
  /** Public URL from `[server] url`, or null. */
  url: string | null;
  /** `trusted_proxies`: addresses and CIDR ranges. */
  trustedProxies: string[];
};

/** A `[[service]]` of the file. `tier` and `sites` formats are documented in docs/configuration.md. */
export type FileService = {
  name: string;
  hosts: string[];
  sites: string[];
  dependsOn: string[];
  tier: string | null;
};

/** Host alert thresholds (percent, or degrees Celsius for temperature); null turns an alert off. */
export type HostAlerts = {
  cpu: number | null;
  memory: number | null;
  swap: number | null;
  disk: number | null;
  temperature: number | null;
  ignoreMounts: string[];
};

export type FileHost = { name: string; alerts: HostAlerts };

/** A `[[check]]` of the file, translated to the API's check body. `index` is its position in the file. */
export type FileCheck = { index: number; body: CheckBody; pingToken: string | null };

/** An `[[alert]]` notification channel of the file. Secret values stay in memory only. */
export type FileAlert = { index: number; name: string; kind: string; settings: Record<string, unknown> };

export type LiveConfig = {
  server: ServerSettings;
  auth: AuthConfig;
  retention: { checkResultsMs: number };
  services: FileService[];
  hosts: FileHost[];
  checks: FileCheck[];
  alerts: FileAlert[];
};

export const defaultRetention = { checkResultsMs: 90 * 86_400_000 };

export interface ConfigService {
  current(): LiveConfig;
  /** The current config-file error, or null when the file is fine. */
  error(): string | null;
  /** Calls `listener` after each successful reload. Returns the unsubscribe function. */
  onChange(listener: (config: LiveConfig) => void): () => void;
  close(): void;
}

/** A fixed configuration, for tests that do not involve mon.toml. */
export function staticConfig(config: Partial<LiveConfig> = {}): ConfigService {
  const value: LiveConfig = {
    server: { url: null, trustedProxies: [] },
    auth: authConfigSchema.parse({}),
    retention: defaultRetention,
    services: [],
    hosts: [],
    checks: [],
    alerts: [],
    ...config,
  };
  return {
    current: () => value,
    error: () => null,
    onChange: () => () => {},
    close: () => {},
  };
}
