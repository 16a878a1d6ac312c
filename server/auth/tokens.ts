import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import { all, int, type Mapper, mapper, nullable, one, oneOf, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { type TokenScope, tokenScopes } from './access.ts';
import { publicId, randomSecret, sha256 } from './secrets.ts';

export const tokenPrefix = 'mon_';

export const newTokenSchema = z.strictObject({
  scope: z.enum(tokenScopes, `must be one of ${tokenScopes.join(', ')}`),
  label: z
    .string('must be a string')
    .trim()
    .min(1, 'must not be empty')
    .max(100, 'must be at most 100 characters'),
});

export type TokenRow = {
  id: string;
  scope: TokenScope;
  label: string;
  createdAt: number;
  lastUsedAt: number | null;
};

const columns = 'id, scope, label, created_at, last_used_at';
const tokenRow: Mapper<TokenRow> = mapper({
  id: text,
  scope: oneOf(tokenScopes),
  label: text,
  createdAt: int,
  lastUsedAt: nullable(int),
});

/** Creates a token; its text is returned here once and stored only as its SHA-256. */
export async function createToken(
  deps: Deps,
  input: { scope: TokenScope; label: string; createdBy: string },
): Promise<TokenRow & { token: string }> {
  const token = tokenPrefix + randomSecret();
  const row: TokenRow = {
    id: publicId(),
    scope: input.scope,
    label: input.label,
    createdAt: deps.clock.now(),
    lastUsedAt: null,
  };
  await deps.store.writer.run((db) => {
    statement(
      db,
      'INSERT INTO tokens (id, hash, scope, label, created_by, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(row.id, sha256(token), row.scope, row.label, input.createdBy, row.createdAt);
  });
  return { ...row, token };
}

/** The token with this text, looked up by its hash (an index lookup on a digest: no timing signal). */
export function findToken(db: DatabaseSync, text: string): TokenRow | null {
  if (!text.startsWith(tokenPrefix) || text.length > 200) return null;
  return one(db, `SELECT ${columns} FROM tokens WHERE hash = ?`, tokenRow, sha256(text)) ?? null;
}

export function listTokens(db: DatabaseSync): TokenRow[] {
  return all(db, `SELECT ${columns} FROM tokens ORDER BY created_at, id`, tokenRow);
}

/** Revokes a token; returns what it was, or null when no such token exists. */
export function deleteToken(deps: Deps, id: string): Promise<TokenRow | null> {
  return deps.store.writer.run(
    (db) => one(db, `DELETE FROM tokens WHERE id = ? RETURNING ${columns}`, tokenRow, id) ?? null,
  );
}

export function touchToken(db: DatabaseSync, id: string, now: number): void {
  statement(db, 'UPDATE tokens SET last_used_at = ? WHERE id = ?').run(now, id);
}
