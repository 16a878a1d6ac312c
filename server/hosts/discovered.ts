import type { DatabaseSync } from 'node:sqlite';
import type { CheckBody } from '../../protocol/check.ts';
import type { Monitored } from '../../protocol/hosts.ts';
import { liveKeys } from '../../protocol/live.ts';
import type { CheckEngine } from '../checks/engine.ts';
import { insertApiCheck, newApiCheck } from '../checks/manage.ts';
import { withHeaderValues } from '../checks/routes.ts';
import { ensureService } from '../checks/store.ts';
import type { Deps } from '../deps.ts';
import { conflict, invalid } from '../problem.ts';
import { all, exists, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { recountItems } from './item-counts.ts';
import { membership } from './membership.ts';
import { knownHosts } from './store.ts';

/**
 * Discovered items (docs/hosts.md): containers and units of no service. Dismissing one hides it for
 * good (its id is stable: the agent sending it again does not bring it back); monitoring makes the
 * host part of a service, so that its items can belong to it (membership.ts).
 */

/** Hides discovered items; every id must name a container or unit mon has (422 naming the first that does not). */
export async function dismissItems(deps: Deps, ids: string[]): Promise<void> {
  const now = deps.clock.now();
  await deps.store.writer.run((db) => {
    ids.forEach((id, i) => {
      if (!exists(db, 'SELECT 1 FROM host_items WHERE id = ?', id)) {
        throw invalid(`ids[${i}]`, 'no container or unit has this id');
      }
    });
    const insert = statement(
      db,
      'INSERT INTO discovered_dismissed (id, dismissed_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING',
    );
    for (const id of ids) insert.run(id, now);
    const m = membership(db, deps.config.current());
    for (const host of hostsOfItems(db, ids)) recountItems(db, m, host);
  });
}

const hostRow = mapper({ host: text });

function hostsOfItems(db: DatabaseSync, ids: string[]): string[] {
  return all(
    db,
    'SELECT DISTINCT host FROM host_items WHERE id IN (SELECT value FROM json_each(?))',
    hostRow,
    JSON.stringify(ids),
  ).map((r) => r.host);
}

/**
 * `POST /discovered/monitor`, in one writer job: creates the service when missing (a panel service),
 * links the host to it (`service_hosts`) and adds the check, if any, as `POST /checks` would. Any
 * refusal leaves nothing behind: no service, no link, no check.
 */
export async function monitorHost(
  engine: CheckEngine,
  input: { host: string; service: string; check: CheckBody | null },
): Promise<Monitored> {
  const { deps } = engine;
  const { host, service } = input;
  if (input.check && input.check.service !== service) {
    throw invalid('check.service', `must be the service monitored ("${service}")`);
  }
  const rec = input.check
    ? newApiCheck(engine, withHeaderValues(input.check, null, 'check.'), 'check.')
    : null;
  const now = deps.clock.now();
  await deps.store.writer.run((db, tx) => {
    const config = deps.config.current();
    if (!knownHosts(db, config).has(host))
      throw invalid('host', `no host named "${host}": add it with POST /api/v1/hosts`);
    if (
      config.services.some((s) => s.name === service) ||
      exists(db, 'SELECT 1 FROM services WHERE name = ? AND managed = 1', service)
    ) {
      throw conflict(`the service "${service}" is defined in mon.toml; list the host in its hosts there`);
    }
    if (exists(db, 'SELECT 1 FROM checks WHERE name = ?', service)) {
      throw conflict(`a check named "${service}" exists`);
    }
    ensureService(db, service, now);
    statement(db, 'INSERT INTO service_hosts (service, host) VALUES (?, ?) ON CONFLICT DO NOTHING').run(
      service,
      host,
    );
    if (rec) insertApiCheck(engine, db, tx, rec, 'check.');
    // Its items now belong to the service (or to none, were it its second).
    recountItems(db, membership(db, config), host);
    tx.invalidate(liveKeys.service(service), liveKeys.overview);
  });
  return { service, check: rec?.id ?? null };
}
