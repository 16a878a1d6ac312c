import type { Range } from '../checks/keys.ts';

/** Ranges of a host's charts (`?range=` of the host read), as a check's. */
export { type Range, ranges } from '../checks/keys.ts';

/**
 * Host pages read again on this timer: agents send a sample every 15 s and host reads have no live keys
 * (too many changes for the stream to name).
 */
export const REFRESH_MS = 15_000;

/** Query keys of hosts: everything starts with ['hosts'], one host's reads with ['hosts', 'host', name]. */
export const hostKeys = {
  all: ['hosts'] as const,
  list: ['hosts', 'list'] as const,
  one: (name: string) => ['hosts', 'host', name] as const,
  read: (name: string, range: Range) => ['hosts', 'host', name, 'read', range] as const,
  item: (name: string, kind: 'container' | 'unit', item: string, range: Range) =>
    ['hosts', 'host', name, kind, item, range] as const,
};
