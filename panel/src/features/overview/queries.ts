import { useQuery } from '@tanstack/react-query';
import type { Overview, Warnings } from '../../../../protocol/overview.ts';
import { get } from '../../lib/api.ts';
import { type OverviewRange, overviewKeys } from './keys.ts';

export function useOverview(range: OverviewRange) {
  return useQuery({
    queryKey: overviewKeys.read(range),
    queryFn: () => get<Overview>(`/overview?range=${range}`),
    // A new range keeps showing the previous one until it arrives.
    placeholderData: (previous) => previous,
  });
}

/** Setups in which alerts may reach nobody; read again on focus and at most once a minute. */
export function useWarnings() {
  return useQuery({
    queryKey: overviewKeys.warnings,
    queryFn: () => get<Warnings>('/warnings'),
    staleTime: 60_000,
  });
}
