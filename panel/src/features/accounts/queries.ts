import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Role, TokensList, UsersList } from '../../../../protocol/accounts.ts';
import { del, enc, get, put } from '../../lib/api.ts';
import { accountKeys } from './keys.ts';

export function useUsers() {
  return useQuery({ queryKey: accountKeys.users, queryFn: () => get<UsersList>('/users') });
}

/** Reloads the list of people after a change. */
export function useRefreshUsers(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: accountKeys.users });
}

/** A new role or password for a person (`PUT /users/{id}`). */
export function changeUser(id: string, body: { role?: Role; password?: string }): Promise<unknown> {
  return put(`/users/${enc(id)}`, body);
}

export function useChangeRole() {
  const refresh = useRefreshUsers();
  return useMutation({
    mutationFn: ({ id, role }: { id: string; role: Role }) => changeUser(id, { role }),
    onSuccess: refresh,
  });
}

export function useRemoveUser() {
  const refresh = useRefreshUsers();
  return useMutation({ mutationFn: (id: string) => del(`/users/${enc(id)}`), onSuccess: refresh });
}

export function useTokens() {
  return useQuery({ queryKey: accountKeys.tokens, queryFn: () => get<TokensList>('/tokens') });
}

export function useRefreshTokens(): () => Promise<void> {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: accountKeys.tokens });
}

/** Revokes a token; the list reloads whether it worked or not. */
export function useRevokeToken(onSettled: () => void) {
  const refresh = useRefreshTokens();
  return useMutation({
    mutationFn: (id: string) => del(`/tokens/${enc(id)}`),
    onSettled: () => {
      onSettled();
      void refresh();
    },
  });
}
