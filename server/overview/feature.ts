import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { ForwardedWatch } from './forwarded.ts';
import { registerOverview } from './routes.ts';
import { SharedHostCheck } from './shared-host.ts';

/** The overview read and the warnings read (shared host, channels, untrusted proxies). */
export function createOverview(deps: Deps, engine: CheckEngine): { feature: Feature } {
  const watch = { forwarded: new ForwardedWatch(), sharedHost: new SharedHostCheck() };
  return { feature: { name: 'overview', routes: (app) => registerOverview(app, deps, engine, watch) } };
}
