import type { Principal } from '../auth/access.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { registerStream } from './routes.ts';

/** The live update stream: bus keys, published after commit, fanned out to the panel's streams. */
export function liveFeature(deps: Deps, stillValid: (principal: Principal | null) => boolean): Feature {
  return { name: 'live', routes: (app) => void registerStream(app, deps, stillValid) };
}
