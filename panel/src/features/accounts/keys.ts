/** Query keys of accounts: people and API tokens (admins only). Who is signed in: lib/session.ts. */
export const accountKeys = {
  users: ['users'] as const,
  tokens: ['tokens'] as const,
};
