import type { DatabaseSync } from 'node:sqlite';
import { z } from 'zod';
import type { UserView } from '../../protocol/accounts.ts';
import { all, int, type Mapper, mapper, nullable, one, oneOf, scalar, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Role, User } from './access.ts';
import { publicId } from './secrets.ts';

/** An email address as mon stores it: trimmed and lowercased. */
export const emailSchema = z
  .string('must be an email address')
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be an email address'));

export const roleSchema = z.enum(['admin', 'viewer'], 'must be admin or viewer');

/** How an account came to be: `setup`, `admin` (added by an admin), `oidc:<provider>` or `proxy`. */
export type UserRow = User & {
  password: string | null;
  source: string;
  createdAt: number;
  lastSignInAt: number | null;
};

/** `users.role`. */
export const roleColumn = oneOf<Role>(['admin', 'viewer']);

const columns = 'id, email, role, password, source, created_at, last_sign_in_at';
const userRow: Mapper<UserRow> = mapper({
  id: text,
  email: text,
  role: roleColumn,
  password: nullable(text),
  source: text,
  createdAt: int,
  lastSignInAt: nullable(int),
});

export function userByEmail(db: DatabaseSync, email: string): UserRow | null {
  return one(db, `SELECT ${columns} FROM users WHERE email = ?`, userRow, email) ?? null;
}

export function userById(db: DatabaseSync, id: string): UserRow | null {
  return one(db, `SELECT ${columns} FROM users WHERE id = ?`, userRow, id) ?? null;
}

export function listUsers(db: DatabaseSync): UserRow[] {
  return all(db, `SELECT ${columns} FROM users ORDER BY created_at, email`, userRow);
}

export function adminCount(db: DatabaseSync): number {
  return scalar(db, `SELECT count(*) AS n FROM users WHERE role = 'admin'`, int);
}

/** Inserts an account; returns null when the email is taken. Runs inside the writer. */
export function insertUser(
  db: DatabaseSync,
  user: { email: string; role: Role; password: string | null; source: string; now: number },
): UserRow | null {
  const id = publicId();
  const result = statement(
    db,
    `INSERT INTO users (id, email, role, password, source, created_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (email) DO NOTHING`,
  ).run(id, user.email, user.role, user.password, user.source, user.now);
  if (result.changes === 0) return null;
  return userById(db, id);
}

export function touchSignIn(db: DatabaseSync, userId: string, now: number): void {
  statement(db, 'UPDATE users SET last_sign_in_at = ? WHERE id = ?').run(now, userId);
}

/** The public view of an account: never the password hash. */
export function userView(u: UserRow): UserView {
  return {
    id: u.id,
    email: u.email,
    role: u.role,
    source: u.source,
    hasPassword: u.password !== null,
    createdAt: u.createdAt,
    lastSignInAt: u.lastSignInAt,
  };
}

/** Who may enter through a provider or proxy: listed addresses, listed domains, or listed admins. */
export type AdmissionRules = { allowed_emails: string[]; allowed_domains: string[]; admins: string[] };

export function listedIn(rules: AdmissionRules, email: string): boolean {
  const domain = email.slice(email.lastIndexOf('@') + 1);
  return (
    rules.allowed_emails.includes(email) ||
    rules.admins.includes(email) ||
    rules.allowed_domains.includes(domain)
  );
}

/** Accounts an admin made in mon (or the first account) may use any provider with the same address. */
export function madeInMon(user: UserRow | null): boolean {
  return user !== null && (user.source === 'admin' || user.source === 'setup');
}
