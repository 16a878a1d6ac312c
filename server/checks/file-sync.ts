import { liveKeys } from '../../protocol/live.ts';
import type { LiveConfig } from '../config/service.ts';
import type { FileCheck } from './config.ts';
import { type CheckRegistry, deleteInJob, newId, newRecord, redefine, removedEvent } from './manage.ts';
import type { Entry } from './record.ts';
import { setAside, takeBack } from './removed.ts';
import { dropEmptyServices, ensureService, insertCheck, setManagedServices } from './store.ts';

/**
 * Takes the checks and services of mon.toml into the database. A file check is known by its name:
 * a new name is a new check; a changed definition (even of its service or target) is applied to the
 * same check, id and history kept; a name gone from the file is set aside (removed.ts) and, put back
 * within a day, restored with its id, history and ping URL. A service left without checks goes, as
 * after deleting a panel check, and so does a `[[service]]` taken out of the file that nothing else
 * holds (store.ts dropEmptyServices). A file check whose name a panel check holds is skipped (the loader
 * refuses such a file before it gets here); a host's command check in its way is removed.
 */
export async function reconcileFile(engine: CheckRegistry, config: LiveConfig): Promise<void> {
  const { store, clock, log } = engine.deps;
  const now = clock.now();
  const wanted = new Set(config.checks.map((c) => c.body.name));
  // Services that may be left without checks: those of removed and moved checks.
  const left = new Set<string>();

  // Removals first, so that a renamed heartbeat can take its ping token along.
  for (const entry of engine.all()) {
    if (!entry.rec.managed || wanted.has(entry.rec.name)) continue;
    const { id, service } = entry.rec;
    left.add(service);
    await logged(log, 'mon.toml check not removed', entry.rec.name, () =>
      store.writer.run((db, tx) => {
        setAside(db, id, now);
        engine.deps.events.dispatch(tx, [removedEvent(entry.rec, now)], now);
        tx.afterCommit(() => engine.forget(id));
        tx.invalidate(liveKeys.service(service), liveKeys.overview);
      }),
    );
  }

  // The file wins over hosts' checks files: a command check whose name (or service) the file takes
  // gives way as if deleted, and its host shows the name as held by the file.
  const file = config.managed;
  for (const { rec } of engine.all()) {
    if (!rec.hostDefined) continue;
    if (!file.checks.has(rec.name) && !file.services.has(rec.name) && !file.checks.has(rec.service)) continue;
    await logged(log, 'host check not removed', rec.name, () =>
      store.writer.run((_db, tx) => deleteInJob(engine, tx, rec, now)),
    );
  }

  const names = new Map(engine.all().map((e) => [e.rec.name, e]));
  for (const file of config.checks) {
    const { body, pingTokenHash } = file;
    await logged(log, 'mon.toml check not taken in', body.name, async () => {
      const existing = names.get(body.name) ?? (await addOrRestore(engine, file, now));
      if (!existing) return;
      if (!existing.rec.managed) {
        log.warn('mon.toml check skipped: a panel check has its name', { name: body.name });
        return;
      }
      // Without a token in the file, a heartbeat keeps the URL made in the panel.
      const keepHash = pingTokenHash ?? (existing.rec.pingTokenFile ? null : existing.rec.pingTokenHash);
      const same =
        JSON.stringify(existing.rec.body) === JSON.stringify(body) && keepHash === existing.rec.pingTokenHash;
      if (existing.rec.service !== body.service) left.add(existing.rec.service);
      if (!same) await redefine(engine, existing, body, keepHash, pingTokenHash !== null);
    });
  }

  const services = [...config.services.map((s) => s.name), ...config.checks.map((c) => c.body.service)];
  await logged(log, 'mon.toml services not taken in', null, () =>
    store.writer.run((db, tx) => {
      setManagedServices(db, [...new Set(services)], now);
      // Those left without checks, and the file's services it no longer declares, go if nothing holds them.
      for (const service of dropEmptyServices(db)) left.add(service);
      tx.invalidate(liveKeys.overview, ...[...left].map(liveKeys.service));
    }),
  );
}

/**
 * A file check whose name no check holds: the one set aside under that name within the last day comes
 * back (returned, so that the file's definition is then applied to it), or a new check is made.
 */
async function addOrRestore(engine: CheckRegistry, file: FileCheck, now: number): Promise<Entry | undefined> {
  const { body } = file;
  const rec = newRecord(newId(), body, now, true, file.pingTokenHash);
  const back = await engine.deps.store.writer.run((db, tx) => {
    const back = takeBack(db, body.name, now);
    if (!back) {
      ensureService(db, body.service, now, true);
      insertCheck(db, rec);
    }
    const taken = back ?? rec;
    tx.afterCommit(() => engine.adopt(taken, 'now', now));
    tx.invalidate(liveKeys.service(taken.service), liveKeys.overview);
    return back;
  });
  return back ? engine.get(back.id) : undefined;
}

/** One check's failure (storage busy, a constraint) is logged and the others still go through. */
async function logged(
  log: CheckRegistry['deps']['log'],
  message: string,
  name: string | null,
  fn: () => Promise<unknown>,
): Promise<void> {
  try {
    await fn();
  } catch (error) {
    log.error(message, { ...(name === null ? {} : { name }), error: String(error) });
  }
}
