import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { type ApiBases, defaultApiBases } from './channels/kind.ts';
import type { NotifyOptions } from './options.ts';
import { outboxSubscriber } from './outbox.ts';
import { createReminders } from './reminders.ts';
import { createSender } from './sender.ts';

/**
 * Notifications (docs/notifications.md): the outbox subscriber of incident changes, the sender with
 * its retries, reminders, the channel routes and the settings read.
 */
export function createNotify(deps: Deps, options: NotifyOptions = {}) {
  const bases: ApiBases = { ...defaultApiBases, ...options.bases };
  const sender = createSender(deps, { bases });
  const ctx = { config: () => deps.config.current(), wake: sender.wake };
  const reminders = createReminders(deps, ctx);
  // Subscribed while the server is composed, after the incidents: no incident change goes unqueued.
  deps.events.subscribe(outboxSubscriber(ctx));
  deps.events.subscribe(reminders.subscriber);
  const feature: Feature = {
    name: 'notify',
    routes() {},
    start() {
      sender.start();
      reminders.start();
    },
    async stop() {
      await reminders.stop();
      await sender.stop();
    },
  };
  return { feature };
}
