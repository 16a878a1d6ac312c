import type { LastGoodText } from '../config/last-good.ts';
import type { Log } from '../log.ts';
import type { Store } from './db.ts';
import { mapper, one, text } from './rows.ts';
import { statement } from './statements.ts';

/**
 * The last good mon.toml's text in `meta`, beside the setup token: like the panel channels' secrets,
 * what it may hold stays in the database.
 */
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
