import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { housekeeping } from '../housekeeping.ts';
import { closeIdleConnections } from '../http/outbound.ts';
import { registerChannels } from './channel-routes.ts';
import { defaultApiBases, type Reach } from './channels/kind.ts';
import type { NotifyOptions } from './options.ts';
import { outboxSubscriber, pruneOutbox } from './outbox.ts';
import { createReminders } from './reminders.ts';
import { createSender } from './sender.ts';
import { registerSettings } from './settings-routes.ts';

/**
 * Notifications (docs/notifications.md): the outbox subscriber of incident changes, the sender with
 * its retries, reminders, the channel routes and the settings read.
 */
export function createNotify(deps: Deps, options: NotifyOptions = {}) {
  const reach: Reach = {
    bases: { ...defaultApiBases, ...options.bases },
    dnsServers: options.dnsServers,
    extraCa: options.extraCa,
  };
  const sender = createSender(deps, { reach });
  const ctx = { config: () => deps.config.current(), wake: sender.wake };
  const reminders = createReminders(deps, ctx);
  // Subscribed while the server is composed, after the incidents: no incident change goes unqueued.
  deps.events.subscribe(outboxSubscriber(ctx));
  deps.events.subscribe(reminders.subscriber);
  const cleanup = housekeeping(deps, 'notify', ({ now }) => [
    { failed: 'pruning notifications failed', run: () => pruneOutbox(deps, now) },
  ]);
  const feature: Feature = {
    name: 'notify',
    routes(app) {
      registerChannels(app, deps, reach);
      registerSettings(app, deps);
    },
    start() {
      sender.start();
      reminders.start();
      cleanup.start();
    },
    async stop() {
      cleanup.stop();
      await reminders.stop();
      await sender.stop();
      closeIdleConnections();
    },
  };
  return { feature, pruned: cleanup.idle };
}
