import type { QueryClient } from '@tanstack/react-query';
import type { CheckDefinitionRead, CheckDetail } from '../../../../protocol/reads.ts';

/** Ranges of a check's chart (`?range=` of the detail read). */
export const ranges = ['1h', '24h', '7d', '30d', '1y'] as const;
export type Range = (typeof ranges)[number];

/**
 * Query keys of checks: every read of one check starts with ['check', id], so that the stream key
 * `service:<name>` reaches all of them. The ping URL is not a read: it lives only in this page's memory.
 */
export const checkKeys = {
  all: ['check'] as const,
  of: (id: string) => ['check', id] as const,
  detail: (id: string, range: Range) => ['check', id, 'detail', range] as const,
  definition: (id: string) => ['check', id, 'definition'] as const,
  history: (id: string) => ['check', id, 'history'] as const,
  pingUrl: (id: string) => ['ping-url', id] as const,
};

/** The service of a check as its cached detail or definition says, or undefined when none is cached. */
export function cachedService(client: QueryClient, id: string): string | undefined {
  let fromDefinition: string | undefined;
  for (const query of client.getQueryCache().findAll({ queryKey: checkKeys.of(id) })) {
    const data = query.state.data;
    if (data === undefined) continue;
    const part = query.queryKey[2];
    if (part === 'detail') return (data as CheckDetail).check.service;
    if (part === 'definition') fromDefinition = (data as CheckDefinitionRead).input.service;
  }
  return fromDefinition;
}
