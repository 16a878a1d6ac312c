import {
  type QueryClient,
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
} from '@tanstack/react-query';
import type { CheckBody } from '../../../../protocol/check.ts';
import type {
  CheckDefinitionRead,
  CheckDetail,
  Created,
  HistoryPage,
  PingUrl,
} from '../../../../protocol/reads.ts';
import { del, enc, get, post, put } from '../../lib/api.ts';
import { navigate } from '../../lib/router.tsx';
import { serviceKeys } from '../services/keys.ts';
import { checkKeys, type Range } from './keys.ts';

export function useCheckDetail(id: string, range: Range) {
  return useQuery({
    queryKey: checkKeys.detail(id, range),
    queryFn: () => get<CheckDetail>(`/checks/${enc(id)}/detail?range=${range}`),
    // A new range keeps showing the previous one until it arrives.
    placeholderData: (previous) => previous,
  });
}

/** The definition of a check; `forForm` keeps it as read while the form is open. */
export function useCheckDefinition(id: string | undefined, { forForm = false } = {}) {
  return useQuery({
    queryKey: checkKeys.definition(id ?? 'new'),
    queryFn: () => get<CheckDefinitionRead>(`/checks/${enc(id!)}`),
    enabled: !!id,
    ...(forForm ? { staleTime: Number.POSITIVE_INFINITY } : {}),
  });
}

/** Failures and changes, newest first, 100 per page (the most a page holds): repeated failures fold. */
export function useCheckHistory(id: string) {
  return useInfiniteQuery({
    queryKey: checkKeys.history(id),
    queryFn: ({ pageParam }) =>
      get<HistoryPage>(
        `/checks/${enc(id)}/history?limit=100${pageParam === null ? '' : `&before=${pageParam}`}`,
      ),
    initialPageParam: null as number | null,
    getNextPageParam: (last) => last.next,
  });
}

/** The ping URL shown once when made; it lives in this page's memory until reload. */
export function usePingUrl(id: string) {
  const client = useQueryClient();
  const key = checkKeys.pingUrl(id);
  return useQuery({
    queryKey: key,
    queryFn: () => client.getQueryData<PingUrl>(key) ?? null,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: Number.POSITIVE_INFINITY,
  });
}

export function useMakePingUrl(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => post<PingUrl>(`/checks/${enc(id)}/ping-url`),
    onSuccess: (data) => client.setQueryData(checkKeys.pingUrl(id), data),
  });
}

/** Deletes the check, then shows its service (or the overview when the service is not known). */
export function useDeleteCheck(id: string, service: string | undefined) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => del(`/checks/${enc(id)}`),
    onSuccess: async () => {
      client.removeQueries({ queryKey: checkKeys.of(id) });
      await client.invalidateQueries({ queryKey: serviceKeys.list });
      navigate(service ? `/services/${enc(service)}` : '/');
    },
  });
}

/**
 * Creates (no id) or changes a check and refreshes what shows it. A new heartbeat gets its ping URL at
 * once, so that the check page shows it once.
 */
export async function saveCheck(
  client: QueryClient,
  id: string | undefined,
  body: CheckBody,
): Promise<Created> {
  let saved: Created;
  if (id) {
    saved = await put<Created>(`/checks/${enc(id)}`, body);
  } else {
    saved = await post<Created>('/checks', body);
    if (body.kind === 'heartbeat') {
      const ping = await post<PingUrl>(`/checks/${enc(saved.id)}/ping-url`).catch(() => null);
      if (ping) client.setQueryData(checkKeys.pingUrl(saved.id), ping);
    }
  }
  await client.invalidateQueries({ queryKey: checkKeys.of(saved.id) });
  void client.invalidateQueries({ queryKey: serviceKeys.list });
  void client.invalidateQueries({ queryKey: serviceKeys.all });
  return saved;
}
