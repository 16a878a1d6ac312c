import type { HostAlerts } from '../../protocol/hosts.ts';
import type { Deps } from '../deps.ts';
import { conflict, notFound } from '../problem.ts';
import { mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { beingRemoved } from './remove.ts';
import { fileHostNames, knownHosts, newHostToken, putHostToken, type TokenBy } from './store.ts';

/** Adding hosts and setting their thresholds through the API (docs/hosts.md). */

const tokenRow = mapper({ tokenHash: nullable(text) });

/**
 * Gives a host a new token, adding the host when mon does not have it: the token is returned once and
 * stored as its hash, with who made it (`by`). `replaced` when the host had a token, which stops
 * working with this commit. 409 while a host of that name removed is still being deleted (remove.ts).
 */
export async function addHost(
  deps: Deps,
  name: string,
  by: TokenBy,
): Promise<{ token: string; replaced: boolean }> {
  const { token, hash } = newHostToken();
  const now = deps.clock.now();
  const replaced = await deps.store.writer.run((db) => {
    if (beingRemoved(db, name)) {
      throw conflict(
        `the host "${name}" was just removed and its data is being deleted; add it again in a moment`,
      );
    }
    const before = one(db, 'SELECT token_hash FROM hosts WHERE name = ?', tokenRow, name);
    putHostToken(db, name, hash, now, by);
    return before?.tokenHash != null;
  });
  return { token, replaced };
}

/**
 * Stores a host's thresholds (`hosts.alerts`), making its row when a known host has none. A host
 * defined in mon.toml keeps its thresholds there (409); judged inside the job, so that a reload
 * coming in meanwhile cannot slip an API change under a host of the file.
 */
export async function setHostAlerts(deps: Deps, name: string, alerts: HostAlerts): Promise<void> {
  const now = deps.clock.now();
  await deps.store.writer.run((db) => {
    const config = deps.config.current();
    if (fileHostNames(config).has(name)) {
      throw conflict(`the host "${name}" is defined in mon.toml; set its thresholds in its [[host]] table`);
    }
    if (!knownHosts(db, config).has(name)) throw notFound(`no host ${name}`);
    statement(
      db,
      `INSERT INTO hosts (name, created_at, alerts) VALUES (?, ?, ?)
       ON CONFLICT(name) DO UPDATE SET alerts = excluded.alerts`,
    ).run(name, now, JSON.stringify(alerts));
  });
}
