import type { FastifyInstance } from 'fastify';
import {
  type CheckBody,
  checkBodySchema,
  hideHeaderValues,
  keepStoredHeaders,
} from '../../protocol/check.ts';
import type { CheckDefinitionRead, Created, PingUrl } from '../../protocol/reads.ts';
import type { Deps } from '../deps.ts';
import { publicBase } from '../http/public-base.ts';
import { parseMs, parseRange } from '../http/range.ts';
import { invalid, notFound } from '../problem.ts';
import { readDetail } from './detail.ts';
import type { CheckEngine } from './engine.ts';
import { readHistory } from './history.ts';
import { createCheck, hostDefinedConflict, makePingToken, removeCheck, updateCheck } from './manage.ts';

type IdParams = { Params: { id: string } };
type Query = Record<string, string | undefined>;

/** Check routes of the JSON API (SPEC "JSON API under /api/v1"). */
export function registerChecks(app: FastifyInstance, deps: Deps, engine: CheckEngine): void {
  const entryOf = (id: string) => {
    const entry = engine.get(id);
    if (!entry) throw notFound(`no check ${id}`);
    return entry;
  };

  // A mon.toml rejected for colliding with a name that a rename or delete just freed may load now.
  const retryRejectedFile = () => {
    if (deps.config.error()) deps.config.reload();
  };

  app.post('/api/v1/checks', async (request, reply) => {
    const id = await createCheck(engine, withHeaderValues(checkBodySchema.parse(request.body), null));
    return reply.code(201).send({ id } satisfies Created);
  });

  app.get<IdParams>('/api/v1/checks/:id', async (request) => {
    const { rec } = entryOf(request.params.id);
    return {
      id: rec.id,
      managed: rec.managed,
      hostDefined: rec.hostDefined,
      // A command check's body as its host declared it (it has no headers to hide).
      input: rec.body.kind === 'command' ? rec.body : hideHeaderValues(rec.body),
    } satisfies CheckDefinitionRead;
  });

  app.put<IdParams>('/api/v1/checks/:id', async (request) => {
    const id = request.params.id;
    const { rec } = entryOf(id);
    // Whatever the body: a command check is changed only in its host's checks.toml.
    if (rec.body.kind === 'command') throw hostDefinedConflict(rec);
    await updateCheck(engine, id, withHeaderValues(checkBodySchema.parse(request.body), rec.body));
    retryRejectedFile();
    return { id } satisfies Created;
  });

  app.delete<IdParams>('/api/v1/checks/:id', async (request, reply) => {
    await removeCheck(engine, request.params.id);
    retryRejectedFile();
    return reply.code(204).send();
  });

  app.get<IdParams & { Querystring: Query }>('/api/v1/checks/:id/detail', async (request) => {
    const entry = entryOf(request.params.id);
    return readDetail(engine, entry, parseRange(request.query, deps.clock.now()));
  });

  app.get<IdParams & { Querystring: Query }>('/api/v1/checks/:id/history', async (request) => {
    const entry = entryOf(request.params.id);
    const { before, limit } = request.query;
    const beforeMs = before === undefined ? Number.MAX_SAFE_INTEGER : parseMs(before, 'before');
    const n = limit === undefined ? 20 : Number(limit);
    if (!Number.isInteger(n) || n < 1 || n > 100 || !/^\d+$/.test(limit ?? '20')) {
      throw invalid('limit', 'must be an integer from 1 to 100');
    }
    return readHistory(deps.store.read, entry.rec.id, beforeMs, n);
  });

  app.post<IdParams>('/api/v1/checks/:id/ping-url', async (request, reply) => {
    const { token, replaced } = await makePingToken(engine, request.params.id);
    const answer: PingUrl = { url: `${publicBase(deps, request)}/ping/${token}`, replaced };
    return reply.code(201).send(answer);
  });
}

/**
 * Header values sent as null keep the stored ones (reads hide them); a new check has none to keep.
 * `at` prefixes the field of a check inside a larger body (`check.`).
 */
export function withHeaderValues(body: CheckBody, stored: CheckBody | null, at = ''): CheckBody {
  const { body: filled, missing } = keepStoredHeaders(body, stored);
  if (missing !== null) {
    throw invalid(`${at}headers.${missing}`, 'there is no stored value to keep; give a value');
  }
  return filled;
}
