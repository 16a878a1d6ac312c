import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FramesAnswer } from '../../protocol/agent.ts';
import type { Deps } from '../deps.ts';
import { Problem, unavailable } from '../problem.ts';
import type { IngestQueue } from '../store/ingest.ts';
import type { AgentGate } from './agent-auth.ts';
import type { FramesItem } from './apply.ts';
import { BudgetExceeded, DecodeBudget, decodeFrames } from './decode.ts';

/**
 * Requests of one host: a burst of 300, then one a second. An agent sends a batch every 15 s; after
 * an outage it sends what it kept, oldest first: an hour of batches (240) goes through at once, and
 * more drains at one a second, fifteen times what the agent adds meanwhile.
 */
export const FRAMES_BURST = 300;
export const FRAMES_PER_SECOND = 1;

/**
 * Bytes of frames in flight at most, across requests: inflated JSON, held from decoding until the
 * answer (a batch can inflate to 32 MiB, and waits as parsed frames until it is committed). Beyond,
 * 503 with Retry-After; the agent keeps the batch and sends it again.
 */
export const MAX_DECODING_BYTES = 64 * 1024 * 1024;

/** Answers that refuse what was sent; they count as `mon_ingest_rejected_total{reason="invalid"}`. */
const invalidStatuses = new Set([400, 413, 415]);

/**
 * `POST /agent/v1/frames` (host token): a batch of frames, JSON, gzip or identity, at most 4 MiB as
 * sent. Answered 200 only once every frame is committed, in one writer job of the hosts' ingest queue:
 * the batch's id, its frames and its runs. A batch stored before (same id) is answered as stored and
 * stores nothing. A run of a check that is not this host's (another host's, or moved away since the
 * agent's last poll) is skipped, as is a frame of a kind this server does not know.
 */
export function registerFrames(
  app: FastifyInstance,
  deps: Deps,
  gate: AgentGate,
  queue: IngestQueue<FramesItem>,
  limits: { maxWaiting: number; maxDecodingBytes: number },
): void {
  const { maxWaiting } = limits;
  const limit = gate.hostLimiter(FRAMES_BURST, FRAMES_PER_SECOND);
  const budget = new DecodeBudget(limits.maxDecodingBytes);
  const queueFull = () => {
    deps.metrics.ingestRejected.inc({ reason: 'queue_full' });
    return unavailable(1, 'the write queue is full');
  };
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const hosts = new WeakMap<FastifyRequest, { host: string; at: number }>();
    // Who sends, and whether they may, before a byte of the body is read.
    scope.addHook('onRequest', async (request) => {
      gate.admit(request);
      const { host } = gate.host(request);
      limit(request, host, 'frames');
      hosts.set(request, { host, at: deps.clock.now() });
    });
    scope.addHook('onError', async (_request, _reply, error) => {
      const status = error instanceof Problem ? error.status : (error as { statusCode?: number }).statusCode;
      if (status === 429) deps.metrics.ingestRejected.inc({ reason: 'rate_limited' });
      else if (status !== undefined && invalidStatuses.has(status)) {
        deps.metrics.ingestRejected.inc({ reason: 'invalid' });
      }
    });

    scope.post('/agent/v1/frames', async (request): Promise<FramesAnswer> => {
      const { host, at } = hosts.get(request)!;
      const type = request.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type) || !Buffer.isBuffer(request.body)) {
        throw new Problem(415, 'unsupported media type', 'send the frames as application/json');
      }
      // A batch that could not be queued is not worth inflating.
      if (queue.size >= maxWaiting) throw queueFull();
      const encoding = request.headers['content-encoding'];
      const reservation = budget.reserve();
      try {
        const decoded = await decodeFrames(
          request.body,
          Array.isArray(encoding) ? encoding.join(',') : encoding,
          reservation,
        ).catch((error: unknown) => {
          if (error instanceof BudgetExceeded) deps.metrics.ingestRejected.inc({ reason: 'queue_full' });
          throw error;
        });
        const { unknown, ...frames } = decoded;
        const item: FramesItem = { host, receivedAt: at, frames, outcome: null };
        await queue.submit(item);
        const outcome = item.outcome!;
        const known =
          frames.hello.length +
          frames.sample.length +
          frames.declare.length +
          frames.log.length +
          frames.run.length;
        if (unknown > 0) deps.metrics.agentUnknownFrames.inc(unknown);
        // A batch stored before is answered as it was then, and counted then.
        if (outcome.known) return { stored: known, skipped: unknown };
        const left = outcome.staleRuns + outcome.foreignRuns.length;
        deps.metrics.ingestAccepted.inc({ endpoint: 'agent' }, known - left);
        if (outcome.foreignRuns.length > 0) {
          deps.log.warn('agent runs skipped: their checks do not run on this host', {
            host,
            checks: [...new Set(outcome.foreignRuns)].join(', '),
          });
        }
        return { stored: known - left, skipped: left + unknown };
      } finally {
        reservation.release();
      }
    });
  });
}
