import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { registerConfig } from './routes.ts';

/** mon.toml's status and export routes; the file itself is loaded before any feature (start.ts). */
export function configFeature(deps: Deps): Feature {
  return { name: 'config', routes: (app) => registerConfig(app, deps.config) };
}
