import { useQuery } from '@tanstack/react-query';
import type { ServiceRead, ServicesList } from '../../../../protocol/reads.ts';
import { enc, get } from '../../lib/api.ts';
import { serviceKeys } from './keys.ts';

export function useServices() {
  return useQuery({ queryKey: serviceKeys.list, queryFn: () => get<ServicesList>('/services') });
}

export function useService(name: string) {
  return useQuery({
    queryKey: serviceKeys.one(name),
    queryFn: () => get<ServiceRead>(`/services/${enc(name)}`),
  });
}
