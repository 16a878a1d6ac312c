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

export type LiveConfig = {
  server: ServerSettings;
};

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
  const value: LiveConfig = { server: { url: null, trustedProxies: [] }, ...config };
  return {
    current: () => value,
    error: () => null,
    onChange: () => () => {},
    close: () => {},
  };
}
