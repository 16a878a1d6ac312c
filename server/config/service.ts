import type { CheckBody } from '../../protocol/check.ts';
import { type AuthConfig, authConfigSchema } from '../auth/config.ts';
import { type ConfigExport, exportConfig } from './export.ts';
import type { ChannelKind } from './kinds.ts';

/**
 * The live configuration: the last good mon.toml merged with what the server needs to know of it.
 * Readers call `current()` each time they need a value so that a reload takes effect at once.
 */
export type ServerSettings = {
  /** Public URL from `[server] url` without a trailing slash, or null. */
  url: string | null;
  /** `trusted_proxies`: addresses and CIDR ranges. */
  trustedProxies: string[];
};

export { type ChannelKind, channelKinds, type ServiceTier, serviceTiers } from './kinds.ts';

/** A `[[service]]` of the file. `tier` and `sites` formats are documented in docs/configuration.md. */
export type FileService = {
  name: string;
  hosts: string[];
  /** Host names of web sites (lowercase, like `example.com`). */
  sites: string[];
  dependsOn: string[];
  /** `critical`, `standard` or `low`; the file's default is `standard`. */
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

/** Thresholds of a host without a `[[host]]` table, and of keys a `[[host]]` leaves out. */
export const defaultHostAlerts: HostAlerts = {
  cpu: 90,
  memory: 90,
  swap: 80,
  disk: 90,
  temperature: 85,
  ignoreMounts: [],
};

export type FileHost = { name: string; alerts: HostAlerts };

/** A `[[check]]` of the file, translated to the API's check body. `index` is its position in the file. */
export type FileCheck = { index: number; body: CheckBody; pingToken: string | null };

/** Channel settings in the API's field names; keys a kind does not use are null (`to` empty). */
export type ChannelSettings = {
  url: string | null;
  /** ntfy token, webhook signing secret, Telegram bot token or SMTP password. Never leaves memory. */
  secret: string | null;
  chatId: string | null;
  smtp: string | null;
  /** null selects by port (465 = TLS, otherwise STARTTLS when offered). */
  tls: boolean | null;
  username: string | null;
  from: string | null;
  to: string[];
  allowPrivate: boolean;
};

/** An `[[alert]]` notification channel of the file. Secret values stay in memory only. */
export type FileAlert = { index: number; name: string; kind: ChannelKind; settings: ChannelSettings };

/** Names of file-managed objects: the API answers 409 to changes of these. */
export type ManagedNames = {
  /** Checks and heartbeats of `[[check]]`. */
  checks: ReadonlySet<string>;
  /** Services of `[[service]]` and services named by a `[[check]]`. */
  services: ReadonlySet<string>;
  /** Hosts of `[[host]]` (their alert thresholds). */
  hosts: ReadonlySet<string>;
  /** Channels of `[[alert]]`. */
  alerts: ReadonlySet<string>;
};

export type LiveConfig = {
  server: ServerSettings;
  auth: AuthConfig;
  retention: { checkResultsMs: number };
  services: FileService[];
  hosts: FileHost[];
  checks: FileCheck[];
  alerts: FileAlert[];
  managed: ManagedNames;
};

export const defaultRetention = { checkResultsMs: 90 * 86_400_000 };

/**
 * Check names that live outside the file and that a file check or service must not take:
 * panel checks (made through the API) and command checks of hosts' checks files.
 * Never list file-managed checks here.
 */
export type OutsideNames = {
  checks: { name: string; source: 'panel' | 'host'; host?: string }[];
  /** Services that exist outside the file (made by panel checks); a file check must not take their names. */
  services?: string[];
};

/** A check made in the panel or through the API, for the export. */
export type PanelCheck = { body: CheckBody; pingToken: string | null };

/** What the check engine provides to the config service; each defaults to "none". */
export type ConfigProviders = {
  names?: () => OutsideNames;
  panelChecks?: () => PanelCheck[];
};

export interface ConfigService {
  current(): LiveConfig;
  /** The current config-file error, or null when the file is fine. */
  error(): string | null;
  /** Calls `listener` after each successful reload. Returns the unsubscribe function. */
  onChange(listener: (config: LiveConfig) => void): () => void;
  /** Re-reads and re-checks the file now, also when unchanged but rejected (e.g. after a panel check
   * that collided with it was deleted). */
  reload(): void;
  /** The whole configuration (file and panel objects) as mon.toml text, secrets as `${NAME}`. */
  export(): ConfigExport;
  close(): void;
}

export function managedNames(
  config: Pick<LiveConfig, 'services' | 'hosts' | 'checks' | 'alerts'>,
): ManagedNames {
  return {
    checks: new Set(config.checks.map((c) => c.body.name)),
    services: new Set([...config.services.map((s) => s.name), ...config.checks.map((c) => c.body.service)]),
    hosts: new Set(config.hosts.map((h) => h.name)),
    alerts: new Set(config.alerts.map((a) => a.name)),
  };
}

/** The configuration of an empty (or missing) mon.toml. */
export function emptyConfig(): LiveConfig {
  const parts = { services: [], hosts: [], checks: [], alerts: [] };
  return {
    server: { url: null, trustedProxies: [] },
    auth: authConfigSchema.parse({}),
    retention: defaultRetention,
    ...parts,
    managed: managedNames(parts),
  };
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
    onChange: () => () => {},
    reload: () => {},
    export: () => exportConfig(value, new Map(), providers.panelChecks?.() ?? []),
    close: () => {},
  };
}
