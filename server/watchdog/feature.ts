import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { registerWatchdog } from './routes.ts';
import { createWatchdogService } from './service.ts';

/**
 * The watchdog (docs/notifications.md "Watchdog"): mon watches everything but itself, so it sends
 * requests out, at once and then every interval, to an edge (a URL with a bearer token) and a
 * heartbeat URL of another monitoring service; something outside notices when they stop.
 */
export function createWatchdog(deps: Deps) {
  const watchdog = createWatchdogService(deps);
  const feature: Feature = {
    name: 'watchdog',
    routes(app) {
      registerWatchdog(app, watchdog);
    },
    start: () => watchdog.start(),
    stop: () => watchdog.stop(),
  };
  return { feature, watchdog };
}
