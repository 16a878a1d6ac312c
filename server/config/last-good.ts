import type { Log } from '../log.ts';
import type { Store } from '../store/db.ts';
import { mapper, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * The text of the last mon.toml that loaded, kept in the database (`meta`) so that a start with a bad
 * file runs on it, as a rejected live save does, instead of on an empty configuration. The text may
 * hold literal secrets: like the panel channels' secrets, it stays in the database, and nothing reads
 * it but the config service at start (it is never logged, exported or served).
 */
export type LastGoodText = {
  read(): string | null;
  /** Keeps `text` (queued on the writer; a failure is logged, the text in force stays). */
  save(text: string): void;
};

const key = 'config_last_good';
const valueOnly = mapper({ value: text }, (r) => r.value);

export function lastGoodText(store: Store, log: Log): LastGoodText {
  return {
    read: () => one(store.read, 'SELECT value FROM meta WHERE key = ?', valueOnly, key) ?? null,
    save(saved) {
      store.writer
        .run((db) => {
          statement(
            db,
            'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value',
          ).run(key, saved);
        })
        .catch((error: unknown) =>
          log.error('could not keep the last good mon.toml', { error: String(error) }),
        );
    },
  };
}
