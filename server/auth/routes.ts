import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AuthState as AuthRead, AuthUser, Me } from '../../protocol/accounts.ts';
import type { Deps } from '../deps.ts';
import { logSecurity } from '../http/security-log.ts';
import { conflict, forbidden, invalid, Problem } from '../problem.ts';
import { statement } from '../store/statements.ts';
import type { Principal } from './access.ts';
import { beginSignIn, finishSignIn } from './oidc.ts';
import { givenPasswordSchema, newPasswordSchema } from './passwords.ts';
import { secretEquals } from './secrets.ts';
import { type AuthState, countSignIn } from './service.ts';
import {
  clearSessionCookie,
  createSession,
  deleteSession,
  endSessionsOf,
  insertSession,
  sessionMethod,
  setSessionCookie,
} from './sessions.ts';
import { discardSetupToken, setupSpent, spendSetup } from './setup-token.ts';
import { emailSchema, insertUser, userByEmail, userById } from './users.ts';

const setupSchema = z.strictObject({
  token: z.string('must be a string').min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  email: emailSchema,
  password: newPasswordSchema,
});

const loginSchema = z.strictObject({ email: emailSchema, password: givenPasswordSchema });

const passwordChangeSchema = z.strictObject({ current: givenPasswordSchema, password: newPasswordSchema });

const providerParams = z.object({ provider: z.string().max(40) });

/** The signed-in person of a `session` route (the access hook guarantees one). */
export function personOf(request: FastifyRequest): Extract<Principal, { kind: 'user' }> {
  const p = request.principal;
  if (p?.kind !== 'user') throw new Problem(401, 'sign-in required');
  return p;
}

/** Sign-in, sign-out, setup of the first account, own password, OpenID Connect. */
export function registerAuth(app: FastifyInstance, deps: Deps, auth: AuthState): void {
  app.get('/api/v1/auth', async (request) => {
    const config = deps.config.current();
    const p = request.principal;
    return {
      needsSetup: !setupSpent(deps.store.read),
      user: p?.kind === 'user' ? { id: p.user.id, email: p.user.email, role: p.user.role } : null,
      password: config.auth.password,
      providers: config.auth.oidc.map((o) => ({
        name: o.name,
        label: o.label ?? o.name,
        url: `/api/v1/auth/oidc/${o.name}`,
      })),
      proxy: config.auth.proxy !== undefined,
    } satisfies AuthRead;
  });

  app.post('/api/v1/auth/setup', async (request, reply) => {
    countSignIn(deps, auth, request);
    const state = auth;
    if (setupSpent(deps.store.read) || state.setupToken === null) throw conflict('setup is already done');
    const body = setupSchema.parse(request.body ?? {});
    if (!secretEquals(body.token, state.setupToken)) {
      logSecurity(deps, request, 'signin.failed', {
        email: body.email,
        method: 'setup',
        reason: 'wrong setup token',
      });
      throw forbidden('the setup token is not valid');
    }
    const hash = await state.hasher.hash(body.password);
    const now = deps.clock.now();
    const user = await deps.store.writer.run((db) => {
      // Checked again inside the write: two setups racing cannot both win.
      if (setupSpent(db)) throw conflict('setup is already done');
      spendSetup(db, now);
      const made = insertUser(db, { email: body.email, role: 'admin', password: hash, source: 'setup', now });
      if (made) return made;
      // The address already signed in through a proxy or provider: it becomes the first admin.
      statement(db, `UPDATE users SET role = 'admin', password = ?, source = 'setup' WHERE email = ?`).run(
        hash,
        body.email,
      );
      return userByEmail(db, body.email)!;
    });
    state.setupToken = null;
    discardSetupToken(deps);
    logSecurity(deps, request, 'setup.completed', { userId: user.id, email: user.email });
    const session = await createSession(deps, user.id, 'setup');
    setSessionCookie(reply, session.id, deps.config.current().server.url);
    return reply.code(201).send({ id: user.id, email: user.email, role: user.role } satisfies AuthUser);
  });

  app.post('/api/v1/auth/login', async (request, reply) => {
    countSignIn(deps, auth, request);
    if (!deps.config.current().auth.password) {
      const email = loginSchema.safeParse(request.body ?? {}).data?.email ?? null;
      const reason = 'password sign-in is turned off';
      logSecurity(deps, request, 'signin.failed', { email, method: 'password', reason });
      throw forbidden(reason);
    }
    const body = loginSchema.parse(request.body ?? {});
    const user = userByEmail(deps.store.read, body.email);
    const ok = await auth.hasher.verify(body.password, user?.password ?? null);
    if (!ok || !user) {
      const reason = user ? 'wrong password' : 'unknown email';
      logSecurity(deps, request, 'signin.failed', { email: body.email, method: 'password', reason });
      throw new Problem(401, 'sign-in required', 'wrong email or password');
    }
    const session = await createSession(deps, user.id, 'password');
    setSessionCookie(reply, session.id, deps.config.current().server.url);
    return { id: user.id, email: user.email, role: user.role } satisfies AuthUser;
  });

  app.post('/api/v1/auth/logout', async (request, reply) => {
    const person = personOf(request);
    if (person.sessionId) await deleteSession(deps, person.sessionId);
    clearSessionCookie(reply, deps.config.current().server.url);
    return reply.code(204).send();
  });

  app.get('/api/v1/auth/me', async (request) => {
    const { user, via } = personOf(request);
    return { id: user.id, email: user.email, role: user.role, via } satisfies Me;
  });

  app.put('/api/v1/auth/password', async (request, reply) => {
    const person = personOf(request);
    countSignIn(deps, auth, request);
    const body = passwordChangeSchema.parse(request.body ?? {});
    const account = userById(deps.store.read, person.user.id);
    if (!account?.password)
      throw conflict('this account has no password; it signs in through a provider or proxy');
    const { hasher } = auth;
    if (!(await hasher.verify(body.current, account.password))) {
      logSecurity(deps, request, 'signin.failed', {
        email: account.email,
        method: 'password change',
        reason: 'wrong current password',
      });
      throw invalid('current', 'is not the current password');
    }
    const hash = await hasher.hash(body.password);
    const now = deps.clock.now();
    // Every session ends, the caller's too: a session id someone else may have copied dies with the
    // old password. The caller carries on in a new session started the same way as theirs.
    const session = await deps.store.writer.run((db) => {
      const method = person.sessionId ? sessionMethod(db, person.sessionId) : null;
      statement(db, 'UPDATE users SET password = ? WHERE id = ?').run(hash, account.id);
      endSessionsOf(db, account.id);
      return method ? insertSession(db, account.id, method, now) : null;
    });
    if (session) setSessionCookie(reply, session.id, deps.config.current().server.url);
    logSecurity(deps, request, 'password.changed', { userId: account.id, email: account.email });
    return reply.code(204).send();
  });

  app.get('/api/v1/auth/oidc/:provider', async (request, reply) => {
    const { provider } = providerParams.parse(request.params);
    return beginSignIn(deps, auth, request, reply, provider);
  });

  app.get('/api/v1/auth/oidc/:provider/callback', async (request, reply) => {
    countSignIn(deps, auth, request);
    const { provider } = providerParams.parse(request.params);
    return finishSignIn(deps, auth, request, reply, provider);
  });
}
