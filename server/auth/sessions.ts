import type { DatabaseSync } from 'node:sqlite';
import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { blob, int, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { randomSecret, sha256 } from './secrets.ts';
import { roleColumn, type UserRow } from './users.ts';

export const sessionCookie = 'mon_session';
export const sessionLifetimeMs = 30 * 86_400_000;

export type SessionRow = {
  idHash: Buffer;
  userId: string;
  method: string;
  createdAt: number;
  expiresAt: number;
  lastSeenAt: number;
};

/** Starts a session; the returned id goes into the cookie and is stored only as its SHA-256. */
export async function createSession(
  deps: Deps,
  userId: string,
  method: string,
): Promise<{ id: string; expiresAt: number }> {
  const now = deps.clock.now();
  return deps.store.writer.run((db) => insertSession(db, userId, method, now));
}

/** `createSession` inside a writer job, for changes that start a session in the same transaction. */
export function insertSession(
  db: DatabaseSync,
  userId: string,
  method: string,
  now: number,
): { id: string; expiresAt: number } {
  const id = randomSecret();
  const expiresAt = now + sessionLifetimeMs;
  statement(db, 'DELETE FROM sessions WHERE expires_at <= ?').run(now);
  statement(
    db,
    'INSERT INTO sessions (id_hash, user_id, method, created_at, expires_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(sha256(id), userId, method, now, expiresAt, now);
  statement(db, 'UPDATE users SET last_sign_in_at = ? WHERE id = ?').run(now, userId);
  return { id, expiresAt };
}

const methodRow = mapper({ method: text }, (r) => r.method);

/** How a session was started (`password`, `setup`, `oidc:<provider>`), or null when it is gone. */
export function sessionMethod(db: DatabaseSync, idHashHex: string): string | null {
  return (
    one(db, 'SELECT method FROM sessions WHERE id_hash = ?', methodRow, Buffer.from(idHashHex, 'hex')) ?? null
  );
}

const sessionWithUser = mapper(
  {
    idHash: blob,
    userId: text,
    method: text,
    createdAt: int,
    expiresAt: int,
    lastSeenAt: int,
    id: text,
    email: text,
    role: roleColumn,
    password: nullable(text),
    source: text,
    userCreatedAt: int,
    lastSignInAt: nullable(int),
  },
  (r): { session: SessionRow; user: UserRow } => ({
    session: {
      idHash: r.idHash,
      userId: r.userId,
      method: r.method,
      createdAt: r.createdAt,
      expiresAt: r.expiresAt,
      lastSeenAt: r.lastSeenAt,
    },
    user: {
      id: r.id,
      email: r.email,
      role: r.role,
      password: r.password,
      source: r.source,
      createdAt: r.userCreatedAt,
      lastSignInAt: r.lastSignInAt,
    },
  }),
);

/** The live session of a cookie value, with its account; null when unknown or expired. */
export function findSession(
  db: DatabaseSync,
  id: string,
  now: number,
): { session: SessionRow; user: UserRow } | null {
  const found = one(
    db,
    `SELECT s.id_hash, s.user_id, s.method, s.created_at, s.expires_at, s.last_seen_at,
              u.id, u.email, u.role, u.password, u.source, u.created_at AS user_created_at, u.last_sign_in_at
       FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.id_hash = ?`,
    sessionWithUser,
    sha256(id),
  );
  return found && found.session.expiresAt > now ? found : null;
}

export function deleteSession(deps: Deps, idHashHex: string): Promise<void> {
  return deps.store.writer.run((db) => {
    statement(db, 'DELETE FROM sessions WHERE id_hash = ?').run(Buffer.from(idHashHex, 'hex'));
  });
}

/** Ends every session of an account (a new password, a password reset by an admin). */
export function endSessionsOf(db: DatabaseSync, userId: string): void {
  statement(db, 'DELETE FROM sessions WHERE user_id = ?').run(userId);
}

export function touchSession(db: DatabaseSync, idHash: Buffer, now: number): void {
  statement(db, 'UPDATE sessions SET last_seen_at = ? WHERE id_hash = ?').run(now, idHash);
}

/** The session id of the request's cookie, parsed here because access is decided before body parsing. */
export function sessionIdOf(request: FastifyRequest): string | null {
  const header = request.headers.cookie;
  if (!header) return null;
  const value = fastifyCookie.parse(header)[sessionCookie];
  return value && value.length <= 100 ? value : null;
}

/** `Secure` when the public URL is HTTPS. */
export function setSessionCookie(reply: FastifyReply, id: string, serverUrl: string | null): void {
  reply.setCookie(sessionCookie, id, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(serverUrl),
    maxAge: sessionLifetimeMs / 1000,
  });
}

export function clearSessionCookie(reply: FastifyReply, serverUrl: string | null): void {
  reply.clearCookie(sessionCookie, {
    path: '/',
    httpOnly: true,
    sameSite: 'lax',
    secure: isHttps(serverUrl),
  });
}

export function isHttps(url: string | null): boolean {
  return url?.toLowerCase().startsWith('https:') === true;
}
