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
 * `<dataDir>/setup-token` from an earlier start, else a new one written there (mode 0600). Null once
 * setup is done; the file is then removed. The log says only where the token is: logs are often
 * shipped elsewhere, so the token itself goes to a person through `setupNotice`.
 */
export function prepareSetupToken(deps: Deps): string | null {
  const file = setupTokenFile(deps.dataDir);
  if (setupSpent(deps.store.read)) {
    rmSync(file, { force: true });
    return null;
  }
  const fromEnv = deps.env.MON_SETUP_TOKEN?.trim();
  if (fromEnv) {
    deps.log.info('no account yet: create the first one with the token in MON_SETUP_TOKEN');
    return fromEnv;
  }
  const saved = existsSync(file) ? readFileSync(file, 'utf8').trim() : '';
  const token = saved || randomSecret();
  if (!saved) writeFileSync(file, `${token}\n`, { mode: 0o600 });
  deps.log.info('no account yet: create the first one with the setup token, printed on standard output', {
    file,
  });
  return token;
}

/**
 * What mon prints on standard output once it listens, while no account exists: where to create
 * the first account and with which token, framed to stand out from the JSON log lines on standard error.
 * A token from `MON_SETUP_TOKEN` is not repeated: the operator chose it.
 */
export function setupNotice(options: {
  token: string;
  /** The panel's address: `[server] url`, or the address mon listens on. */
  url: string;
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
}): string {
  const fromEnv = Boolean(options.env.MON_SETUP_TOKEN?.trim());
  const rule = '-'.repeat(72);
  const lines = [
    rule,
    'mon has no account yet. Create the first admin account at',
    '',
    `    ${options.url}/setup`,
    '',
    ...(fromEnv
      ? ['with the setup token set in MON_SETUP_TOKEN.']
      : [
          `with this setup token (also in ${setupTokenFile(options.dataDir)}):`,
          '',
          `    ${options.token}`,
          '',
          'It stops working once the account exists. It is not written to the log.',
        ]),
    rule,
  ];
  return `${lines.join('\n')}\n`;
}

/** Forgets the spent token and removes its file. */
export function discardSetupToken(deps: Deps): void {
  rmSync(setupTokenFile(deps.dataDir), { force: true });
}
