import type { DatabaseSync } from 'node:sqlite';
import { type LiveKey, liveKeys } from '../../protocol/live.ts';
import type { WindowBody, WindowKind, WindowRead } from '../../protocol/notify.ts';
import { newId } from '../checks/manage.ts';
import { serviceExists } from '../deploys/store.ts';
import type { Deps } from '../deps.ts';
import { knownHosts } from '../hosts/store.ts';
import { graphOf, type ServiceGraph } from '../incidents/graph.ts';
import { notFound } from '../problem.ts';
import { type KnownNames, windowRules } from './body.ts';
import { windowOf } from './read.ts';
import { deleteWindow, endWindow, getWindow, insertWindow, updateWindow } from './store.ts';

/**
 * Making, changing and ending silences and maintenance windows: each is one writer job that checks the
 * body against what mon knows at that moment, writes, and names the screens that show the window's
 * services. `changed` runs after the commit (the feature re-plans its start and end updates).
 */

type Where = Pick<WindowBody, 'scope' | 'name'>;

/**
 * Live keys of the screens a window changes: its services (a host's: those it runs, mon.toml's and
 * linked), every screen for `all`, and the overview.
 */
export function keysOf(where: Where, graph: ServiceGraph): LiveKey[] {
  if (where.scope === 'all' || where.name === null) return [liveKeys.all];
  const name = where.name;
  const names = where.scope === 'service' ? [name] : graph.servicesOn(name);
  return [liveKeys.overview, ...names.map((n) => liveKeys.service(n))];
}

/** Names a window may take: services in the database (so a removed one is refused), hosts mon knows. */
function knownNames(db: DatabaseSync, deps: Deps): KnownNames {
  return {
    service: (name) => serviceExists(db, name),
    host: (name) => knownHosts(db, deps.config.current()).has(name),
  };
}

export type WindowWrites = {
  create(kind: WindowKind, raw: unknown, by: string): Promise<string>;
  update(kind: WindowKind, id: string, raw: unknown): Promise<WindowRead>;
  remove(kind: WindowKind, id: string): Promise<void>;
};

export function windowWrites(deps: Deps, changed: () => void): WindowWrites {
  const { writer } = deps.store;
  const graph = (db: DatabaseSync) => graphOf(db, deps.config.current().services);
  return {
    create: (kind, raw, by) =>
      writer.run((db, tx) => {
        const now = deps.clock.now();
        const body = windowRules(raw, now, knownNames(db, deps));
        const id = newId();
        insertWindow(db, { ...body, id, kind, createdBy: by }, now);
        tx.invalidate(...keysOf(body, graph(db)));
        tx.afterCommit(changed);
        return id;
      }),
    update: (kind, id, raw) =>
      writer.run((db, tx) => {
        const now = deps.clock.now();
        const old = getWindow(db, kind, id);
        if (!old) throw notFound(`no ${kind} ${id}`);
        const body = windowRules(raw, now, knownNames(db, deps));
        updateWindow(db, id, body, now);
        tx.invalidate(...keysOf(old, graph(db)), ...keysOf(body, graph(db)));
        tx.afterCommit(changed);
        return windowOf(db, id, now)!;
      }),
    remove: (kind, id) =>
      writer.run((db, tx) => {
        const now = deps.clock.now();
        const old = getWindow(db, kind, id);
        if (!old) throw notFound(`no ${kind} ${id}`);
        // In force: it ends now, and the time it held stays recorded. Not started yet, or over: gone.
        if (old.starts <= now && now < old.ends) endWindow(db, id, now);
        else deleteWindow(db, id);
        tx.invalidate(...keysOf(old, graph(db)));
        tx.afterCommit(changed);
      }),
  };
}
