import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { registerAgentFile } from './agent-file.ts';
import { registerHostRoutes } from './routes.ts';

/**
 * Hosts and their agents (docs/hosts.md, docs/agent.md): the agent's routes (frames, poll, the agent
 * file), the host routes of the JSON API, the silence watch and the rollups' pruning.
 */
export function createHosts(deps: Deps, engine: CheckEngine) {
  const feature: Feature = {
    name: 'hosts',
    routes(app) {
      registerAgentFile(app, deps);
      registerHostRoutes(app, deps, engine);
    },
  };
  return { feature };
}
