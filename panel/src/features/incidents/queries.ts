import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { IncidentRead, IncidentsList } from '../../../../protocol/incidents.ts';
import { enc, get, post } from '../../lib/api.ts';
import { overviewKeys } from '../overview/keys.ts';
import { type IncidentRange, incidentKeys } from './keys.ts';

export function useIncidents(range: IncidentRange) {
  return useQuery({
    queryKey: incidentKeys.list(range),
    queryFn: () => get<IncidentsList>(`/incidents?range=${range}`),
    placeholderData: (previous) => previous,
  });
}

export function useIncident(id: string) {
  return useQuery({
    queryKey: incidentKeys.one(id),
    queryFn: () => get<IncidentRead>(`/incidents/${enc(id)}`),
  });
}

/** Acknowledges an incident: it stays open, reminders stop; what shows it is read again. */
export function useAcknowledge(id: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => post<unknown>(`/incidents/${enc(id)}/ack`),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: incidentKeys.one(id) });
      void client.invalidateQueries({ queryKey: incidentKeys.all });
      void client.invalidateQueries({ queryKey: overviewKeys.all });
    },
  });
}
