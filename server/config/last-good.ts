/**
 * The text of the last mon.toml that loaded, kept so that a start with a bad file runs on it, as a
 * rejected live save does, instead of on an empty configuration. The store keeps it
 * (`store/last-good-config.ts`); the text may hold literal secrets, so nothing reads it but the config
 * service at start (it is never logged, exported or served).
 */
export type LastGoodText = {
  read(): string | null;
  /** Keeps `text` (queued on the writer; a failure is logged, the text in force stays). */
  save(text: string): void;
};
