import type { DatabaseSync } from 'node:sqlite';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { UsersList } from '../../protocol/accounts.ts';
import type { Deps } from '../deps.ts';
import { logSecurity } from '../http/security-log.ts';
import { conflict, notFound } from '../problem.ts';
import { statement } from '../store/statements.ts';
import { newPasswordSchema } from './passwords.ts';
import type { AuthState } from './service.ts';
import { endSessionsOf } from './sessions.ts';
import {
  adminCount,
  emailSchema,
  insertUser,
  listUsers,
  roleSchema,
  type UserRow,
  userById,
  userView,
} from './users.ts';

const newUserSchema = z.strictObject({
  email: emailSchema,
  role: roleSchema,
  // Absent or null: the account signs in only through a provider or the proxy.
  password: newPasswordSchema.nullable().optional(),
});

const changeSchema = z
  .strictObject({ role: roleSchema.optional(), password: newPasswordSchema.optional() })
  .refine((b) => b.role !== undefined || b.password !== undefined, 'give role, password or both');

const idParams = z.object({ id: z.string() });

function existing(db: DatabaseSync, id: string): UserRow {
  const user = /^[0-9a-f]{16}$/.test(id) ? userById(db, id) : null;
  if (!user) throw notFound('no such user');
  return user;
}

/** Accounts, for admins: list, add, change role or password, remove. At least one admin always stays. */
export function registerUsers(app: FastifyInstance, deps: Deps, auth: AuthState): void {
  app.get(
    '/api/v1/users',
    async (): Promise<UsersList> => ({ users: listUsers(deps.store.read).map(userView) }),
  );

  app.post('/api/v1/users', async (request, reply) => {
    const body = newUserSchema.parse(request.body ?? {});
    const hash = body.password ? await auth.hasher.hash(body.password) : null;
    const now = deps.clock.now();
    const user = await deps.store.writer.run((db) =>
      insertUser(db, { email: body.email, role: body.role, password: hash, source: 'admin', now }),
    );
    if (!user) throw conflict('an account with this email address exists');
    const { id, email, role, source } = user;
    logSecurity(deps, request, 'user.created', { userId: id, email, role, source });
    return reply.code(201).send(userView(user));
  });

  app.put('/api/v1/users/:id', async (request) => {
    const { id } = idParams.parse(request.params);
    existing(deps.store.read, id);
    const body = changeSchema.parse(request.body ?? {});
    const hash = body.password ? await auth.hasher.hash(body.password) : null;
    const { before, user } = await deps.store.writer.run((db) => {
      const user = existing(db, id);
      if (body.role && body.role !== user.role) {
        if (user.role === 'admin' && adminCount(db) <= 1) throw conflict('the last admin cannot be demoted');
        statement(db, 'UPDATE users SET role = ? WHERE id = ?').run(body.role, id);
      }
      if (hash) {
        statement(db, 'UPDATE users SET password = ? WHERE id = ?').run(hash, id);
        // A new password set by an admin signs the person out everywhere.
        endSessionsOf(db, id);
      }
      return { before: user, user: userById(db, id)! };
    });
    logSecurity(deps, request, 'user.changed', {
      userId: id,
      email: user.email,
      role: user.role,
      previousRole: before.role,
      passwordReset: hash !== null,
    });
    return userView(user);
  });

  app.delete('/api/v1/users/:id', async (request, reply) => {
    const { id } = idParams.parse(request.params);
    const removed = await deps.store.writer.run((db) => {
      const user = existing(db, id);
      if (user.role === 'admin' && adminCount(db) <= 1) throw conflict('the last admin cannot be removed');
      // Sessions go with the account (ON DELETE CASCADE).
      statement(db, 'DELETE FROM users WHERE id = ?').run(id);
      return user;
    });
    logSecurity(deps, request, 'user.deleted', { userId: id, email: removed.email, role: removed.role });
    return reply.code(204).send();
  });
}
