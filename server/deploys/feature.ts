import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { createRecorder } from './record.ts';
import { registerDeploys } from './routes.ts';

/**
 * Deploys and changes: the deploy and change API, the code-host webhook and the queue that writes
 * them. `recorder` takes deploys from other features too (the agent reports containers started from
 * a new image).
 */
export function createDeploys(deps: Deps) {
  const recorder = createRecorder(deps);
  const feature: Feature = {
    name: 'deploys',
    routes(app) {
      registerDeploys(app, deps, recorder);
    },
    stop: () => recorder.close(),
  };
  return { feature, recorder };
}
