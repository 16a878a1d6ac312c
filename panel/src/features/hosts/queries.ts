import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  AddedHost,
  HostAlertsBody,
  HostRead,
  HostsList,
  ItemSeries,
  Monitored,
} from '../../../../protocol/hosts.ts';
import { del, enc, get, post, put } from '../../lib/api.ts';
import { navigate } from '../../lib/router.tsx';
import { serviceKeys } from '../services/keys.ts';
import { hostKeys, type Range, REFRESH_MS } from './keys.ts';

export function useHosts() {
  return useQuery({
    queryKey: hostKeys.list,
    queryFn: () => get<HostsList>('/hosts'),
    refetchInterval: REFRESH_MS,
  });
}

export function useHost(name: string, range: Range) {
  return useQuery({
    queryKey: hostKeys.read(name, range),
    queryFn: () => get<HostRead>(`/hosts/${enc(name)}?range=${range}`),
    refetchInterval: REFRESH_MS,
    // A new range keeps showing the previous one until it arrives.
    placeholderData: (previous) => previous,
  });
}

/** A container's or unit's CPU and memory over the range; read only while its chart is open. */
export function useItemSeries(host: string, kind: 'container' | 'unit', item: string, range: Range) {
  return useQuery({
    queryKey: hostKeys.item(host, kind, item, range),
    queryFn: () => get<ItemSeries>(`/hosts/${enc(host)}/${kind}s/${enc(item)}?range=${range}`),
    refetchInterval: REFRESH_MS,
    placeholderData: (previous) => previous,
  });
}

/** Reloads every host read (the list and the pages). */
export function useRefreshHosts(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: hostKeys.all });
}

/**
 * Adds a host, or gives an existing one a new token (its old token stops working at once). The answer
 * holds the token and install commands: the caller keeps them in its own state, shown once.
 */
export function addHost(name: string): Promise<AddedHost> {
  return post<AddedHost>('/hosts', { name });
}

export function useNewToken(name: string, onDone: (added: AddedHost) => void) {
  const refresh = useRefreshHosts();
  return useMutation({
    mutationFn: () => addHost(name),
    onSuccess: (added) => {
      onDone(added);
      void refresh();
    },
  });
}

/** Removes the host with its data (a 409 says what holds it), then shows the hosts list. */
export function useRemoveHost(name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => del(`/hosts/${enc(name)}`),
    onSuccess: () => {
      navigate('/hosts');
      client.removeQueries({ queryKey: hostKeys.one(name) });
      void client.invalidateQueries({ queryKey: hostKeys.list });
      void client.invalidateQueries({ queryKey: serviceKeys.list });
    },
  });
}

export async function saveHostAlerts(name: string, body: HostAlertsBody): Promise<void> {
  await put<void>(`/hosts/${enc(name)}/alerts`, body);
}

/** Monitors a discovered item: its service is made if missing and linked to the host. */
export function useMonitor() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (body: { host: string; service: string }) =>
      post<Monitored>('/discovered/monitor', { ...body, check: null }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: hostKeys.all });
      void client.invalidateQueries({ queryKey: serviceKeys.list });
    },
  });
}

export function useDismiss() {
  const refresh = useRefreshHosts();
  return useMutation({
    mutationFn: (ids: string[]) => post<void>('/discovered/dismiss', { ids }),
    onSuccess: refresh,
  });
}
