import type { DatabaseSync } from 'node:sqlite';
import type { WatchdogRead } from '../../protocol/notify.ts';
import type { Deps } from '../deps.ts';
import { movedSecret, sameOrigin } from '../notify/secrets.ts';
import { conflict, invalid } from '../problem.ts';
import { TargetSender } from './sender.ts';
import { followFile, putStored, removeStored, storedSettings, targetOf, watchdogRead } from './store.ts';
import { sameTarget, type TargetSettings, type WatchdogKind, watchdogKinds } from './targets.ts';

/** What the API may set: `token` null or absent keeps the stored one (edge only). */
export type TargetInput = { url: string; token?: string | null | undefined; allowPrivate: boolean };

const fileKey: Record<WatchdogKind, string> = { edge: '[watchdog.edge]', heartbeat: '[watchdog.heartbeat]' };

/**
 * The watchdog (docs/notifications.md "Watchdog"): its two senders, the API's changes, and mon.toml's
 * targets, which take the place of the API's while the file sets them.
 */
export function createWatchdogService(deps: Deps) {
  const senders: Record<WatchdogKind, TargetSender> = {
    edge: new TargetSender(deps, 'edge'),
    heartbeat: new TargetSender(deps, 'heartbeat'),
  };
  const file = () => deps.config.current().watchdog;

  // Checked inside the writer job, so that a reload of mon.toml cannot come between check and write.
  const refuseManaged = (kind: WatchdogKind) => {
    if (file()[kind]) throw conflict(`set by ${fileKey[kind]} of mon.toml: change it there`);
  };

  /** Makes the rows and the senders follow the file; a target that changed is sent to at once. */
  const followConfig = () =>
    deps.store.writer.run((db, tx) => {
      for (const kind of watchdogKinds) {
        const fromFile = file()[kind];
        const sending = senders[kind].current();
        // A file target that changed is a new place: its send state starts empty.
        const changed = sending?.managed === true && !sameTarget(sending, fromFile);
        followFile(db, kind, fromFile !== null, changed);
        const target = targetOf(db, file(), kind);
        if (!senders[kind].differs(target)) continue;
        senders[kind].retire(tx);
        tx.afterCommit(() => senders[kind].follow(target));
      }
    });

  let unsubscribe = () => {};

  return {
    async start(): Promise<void> {
      await followConfig();
      unsubscribe = deps.config.onChange(() => {
        // `every` may have changed: the next requests are due by the new one.
        for (const kind of watchdogKinds) senders[kind].retime();
        followConfig().catch((error: unknown) =>
          deps.log.error('the watchdog could not follow mon.toml', { error: String(error) }),
        );
      });
    },

    async stop(): Promise<void> {
      unsubscribe();
      await Promise.all(watchdogKinds.map((kind) => senders[kind].stop()));
    },

    read(): WatchdogRead {
      return watchdogRead(deps.store.read, file());
    },

    /** Sets a target through the API (409 while the file sets it); the first request goes after the commit. */
    async put(kind: WatchdogKind, input: TargetInput): Promise<void> {
      await deps.store.writer.run((db, tx) => {
        refuseManaged(kind);
        const settings: TargetSettings = { url: input.url, token: null, allowPrivate: input.allowPrivate };
        if (kind === 'edge') settings.token = input.token ?? keptToken(db, input.url);
        putStored(db, kind, settings);
        const target = targetOf(db, file(), kind);
        senders[kind].retire(tx);
        tx.afterCommit(() => senders[kind].follow(target));
      });
    },

    /** Removes a target set through the API (409 while the file sets it); nothing set is no error. */
    async remove(kind: WatchdogKind): Promise<void> {
      await deps.store.writer.run((db, tx) => {
        refuseManaged(kind);
        if (!removeStored(db, kind)) return;
        senders[kind].retire(tx);
        tx.afterCommit(() => senders[kind].follow(null));
      });
    },
  };

  /**
   * The stored edge token, for a PUT that leaves it out. It is kept only for the same origin: whoever
   * may change the URL must not be able to send the token somewhere else without knowing it.
   */
  function keptToken(db: DatabaseSync, url: string): string {
    const stored = storedSettings(db, 'edge');
    if (stored === null || stored.token === null) throw invalid('token', 'required');
    if (!sameOrigin(stored.url, url)) throw invalid('token', movedSecret);
    return stored.token;
  }
}

export type WatchdogService = ReturnType<typeof createWatchdogService>;
