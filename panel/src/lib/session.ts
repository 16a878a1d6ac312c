import { useQuery } from '@tanstack/react-query';
import type { AuthState } from '../../../protocol/accounts.ts';
import { get } from './api.ts';

export const authKey = ['auth'] as const;

export function useAuth() {
  return useQuery({ queryKey: authKey, queryFn: () => get<AuthState>('/auth'), staleTime: 60_000 });
}

/** Whether the signed-in person may change things; viewers see no write controls. */
export function useCanWrite(): boolean {
  return useAuth().data?.user?.role === 'admin';
}
