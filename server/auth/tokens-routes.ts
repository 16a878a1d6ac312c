import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CreatedToken, TokensList } from '../../protocol/accounts.ts';
import type { Deps } from '../deps.ts';
import { logSecurity } from '../http/security-log.ts';
import { notFound } from '../problem.ts';
import { personOf } from './routes.ts';
import { createToken, deleteToken, listTokens, newTokenSchema } from './tokens.ts';

const idParams = z.object({ id: z.string() });

/** API tokens, for admin sessions: list (never the secret), create (secret shown once), revoke. */
export function registerTokens(app: FastifyInstance, deps: Deps): void {
  app.get('/api/v1/tokens', async (): Promise<TokensList> => ({ tokens: listTokens(deps.store.read) }));

  app.post('/api/v1/tokens', async (request, reply) => {
    const body = newTokenSchema.parse(request.body ?? {});
    const token: CreatedToken = await createToken(deps, { ...body, createdBy: personOf(request).user.id });
    logSecurity(deps, request, 'token.created', {
      tokenId: token.id,
      scope: token.scope,
      label: token.label,
    });
    return reply.code(201).header('Cache-Control', 'no-store').send(token);
  });

  app.delete('/api/v1/tokens/:id', async (request, reply) => {
    const { id } = idParams.parse(request.params);
    const revoked = /^[0-9a-f]{16}$/.test(id) ? await deleteToken(deps, id) : null;
    if (!revoked) throw notFound('no such token');
    logSecurity(deps, request, 'token.revoked', { tokenId: id, scope: revoked.scope, label: revoked.label });
    return reply.code(204).send();
  });
}
