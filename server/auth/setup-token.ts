import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { Deps } from '../deps.ts';
import { exists } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { randomSecret } from './secrets.ts';

const spentKey = 'setup_spent';

export function setupTokenFile(dataDir: string): string {
  return join(dataDir, 'setup-token');
}

export function setupSpent(db: DatabaseSync): boolean {
  return exists(db, 'SELECT 1 FROM meta WHERE key = ?', spentKey);
}

/** Marks setup as done; runs inside the writer with the first account's insert. */
export function spendSetup(db: DatabaseSync, now: number): void {
  statement(db, 'INSERT INTO meta (key, value) VALUES (?, ?)').run(spentKey, String(now));
}

/**
 * The setup token for the first account: `MON_SETUP_TOKEN` when set, else the one in
 * `<dataDir>/setup-token` from an earlier start, else a new one written there (mode 0600) and logged.
 * Null once setup is done; the file is then removed.
 */
export function prepareSetupToken(deps: Deps): string | null {
  const file = setupTokenFile(deps.dataDir);
  if (setupSpent(deps.store.read)) {
    rmSync(file, { force: true });
    return null;
  }
  const fromEnv = deps.env.MON_SETUP_TOKEN?.trim();
  if (fromEnv) return fromEnv;
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved) {
      deps.log.info('no account yet: create the first one with the setup token', { token: saved, file });
      return saved;
    }
  }
  const token = randomSecret();
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  deps.log.info('no account yet: create the first one with the setup token', { token, file });
  return token;
}

/** Forgets the spent token and removes its file. */
export function discardSetupToken(deps: Deps): void {
  rmSync(setupTokenFile(deps.dataDir), { force: true });
}
