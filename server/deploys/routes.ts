import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Deps } from '../deps.ts';
import { Problem } from '../problem.ts';
import { rawBody, readFields } from './body.ts';
import { registerCodehost } from './codehost.ts';
import { changeFields, deployFields } from './fields.ts';
import type { Recorder } from './record.ts';

/** Answers that refuse what was sent; they count as `mon_ingest_rejected_total{reason="invalid"}`. */
const invalidStatuses = new Set([400, 413, 422]);

/**
 * `POST /api/deploys`, `POST /api/changes` (deploy tokens) and `POST /hooks/codehost` (signed
 * deliveries). Bodies arrive as raw bytes: the API reads JSON or form fields itself, and the webhook's
 * signature is checked on the exact bytes before anything is parsed.
 */
export function registerDeploys(app: FastifyInstance, deps: Deps, recorder: Recorder): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    // A deploy happened when its report arrived, not when storage got to it.
    const arrivals = new WeakMap<FastifyRequest, number>();
    scope.addHook('onRequest', async (request) => {
      arrivals.set(request, deps.clock.now());
    });
    const arrivedAt = (request: FastifyRequest) => arrivals.get(request) ?? deps.clock.now();

    scope.addHook('onError', async (_request, _reply, error) => {
      const status = error instanceof Problem ? error.status : (error as { statusCode?: number }).statusCode;
      if (status !== undefined && invalidStatuses.has(status)) {
        deps.metrics.ingestRejected.inc({ reason: 'invalid' });
      }
    });

    scope.post('/api/deploys', async (request, reply) => {
      const ts = arrivedAt(request);
      const fields = deployFields(await readFields(rawBody(request), request.headers['content-type']));
      const answer = await recorder.deploy({ ...fields, ts, source: 'api', host: null });
      return reply.code(answer.merged ? 200 : 201).send(answer);
    });

    scope.post('/api/changes', async (request, reply) => {
      const ts = arrivedAt(request);
      const fields = changeFields(await readFields(rawBody(request), request.headers['content-type']));
      const answer = await recorder.change({ ...fields, ts, kind: 'change', source: 'api' });
      return reply.code(201).send(answer);
    });

    registerCodehost(scope, deps, recorder, arrivedAt);
  });
}
