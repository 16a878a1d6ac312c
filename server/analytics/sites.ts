import type { Deps } from '../deps.ts';
import type { Sites } from './types.ts';

/**
 * Known sites: mon.toml's `[[service]] sites` and those added by `POST /api/v1/sites` (the `sites`
 * table). Kept in memory, renewed after a reload and after each site added.
 */
export function createSites(deps: Deps): Sites & { refresh(): void } {
  void deps;
  // Stand-in until built: no site is known.
  return { find: () => null, list: () => [], ofService: () => [], refresh() {} };
}
