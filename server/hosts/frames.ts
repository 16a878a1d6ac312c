import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AGENT_TIME_HEADER, type FramesAnswer, MAX_FRAMES_BYTES } from '../../protocol/agent.ts';
import type { Deps } from '../deps.ts';
import { Problem, unavailable } from '../problem.ts';
import type { IngestQueue } from '../store/ingest.ts';
import type { AgentGate } from './agent-auth.ts';
import type { FramesItem } from './apply.ts';
import {
  clockWarnings,
  type HostClocks,
  leaveOutAhead,
  oncePerMinute,
  placeOnServerClock,
} from './clock-ahead.ts';
import { BudgetExceeded, DecodeBudget, decodeFrames, frameCount, type Reservation } from './decode.ts';

/**
 * Requests of one host: a burst of 300, then one a second. An agent sends a batch every 15 s; after
 * an outage it sends what it kept, oldest first: an hour of batches (240) goes through at once, and
 * more drains at one a second, fifteen times what the agent adds meanwhile.
 */
export const FRAMES_BURST = 300;
export const FRAMES_PER_SECOND = 1;

/**
 * Inflated JSON of one host: 128 MiB at once (a long outage's spool, a batch at most 32 MiB), then
 * 1 MiB a second, over 100 times what an agent of 50 containers and 200 units sends. Parsing JSON costs
 * the event loop up to about 0.1 s a MiB (32 MiB of `[]`, npm run bench -- json-depth), so that one
 * host's token cannot hold the server however it shapes its batches.
 */
export const FRAMES_JSON_BURST = 128 * 1024 * 1024;
export const FRAMES_JSON_PER_SECOND = 1024 * 1024;

/**
 * Bytes of frames in flight at most, across requests: bodies as sent (taken before they are read) and
 * their JSON as inflated, held until the answer (a 4 MiB body can inflate to 32 MiB, and waits as
 * parsed frames until it is committed). Beyond, 503 with Retry-After; the agent keeps the batch and
 * sends it again.
 */
export const MAX_DECODING_BYTES = 64 * 1024 * 1024;

/** Answers that refuse what was sent; they count as `mon_ingest_rejected_total{reason="invalid"}`. */
const invalidStatuses = new Set([400, 413, 415]);

/**
 * `POST /agent/v1/frames` (host token): a batch of frames, JSON, gzip or identity, at most 4 MiB as
 * sent. Answered 200 only once every frame is committed, in one writer job of the hosts' ingest queue:
 * the batch's id, its frames and its runs. A batch stored before (same id) is answered as stored and
 * stores nothing. Skipped, each alone: a run of a check that is not this host's (another host's, or
 * moved away since the agent's last poll), a frame of a kind this server does not know, a frame of a
 * known kind that does not parse (logged with its field), a frame dated more than MAX_AHEAD_MS ahead
 * (once placed on the server's clock, when the agent sent its own: clock-ahead.ts).
 * Returns the memory budget (tests read what it holds).
 */
export function registerFrames(
  app: FastifyInstance,
  deps: Deps,
  gate: AgentGate,
  queue: IngestQueue<FramesItem>,
  clocks: HostClocks,
  limits: { maxWaiting: number; maxDecodingBytes: number },
): DecodeBudget {
  const { maxWaiting } = limits;
  const limit = gate.hostLimiter(FRAMES_BURST, FRAMES_PER_SECOND);
  const limitJson = gate.hostLimiter(FRAMES_JSON_BURST, FRAMES_JSON_PER_SECOND, '1 MiB of JSON a second');
  const budget = new DecodeBudget(limits.maxDecodingBytes);
  const clockAhead = clockWarnings(deps);
  const invalidFrames = invalidWarnings(deps);
  const unknownStates = unknownStateWarnings(deps);
  const queueFull = () => {
    deps.metrics.ingestRejected.inc({ reason: 'queue_full' });
    return unavailable(1, 'the write queue is full');
  };
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const hosts = new WeakMap<
      FastifyRequest,
      { host: string; tokenHash: string; at: number; offsetMs: number | null; reservation: Reservation }
    >();
    // Who sends, whether they may, and the memory for the body, before a byte of it is read.
    scope.addHook('onRequest', async (request, reply) => {
      gate.admit(request);
      const { host, tokenHash } = gate.host(request);
      limit(request, host, 'frames');
      // A batch that could not be queued is not worth reading.
      if (queue.size >= maxWaiting) throw queueFull();
      const reservation = budget.reserve();
      if (!reservation.take(announcedBytes(request.headers['content-length']))) {
        deps.metrics.ingestRejected.inc({ reason: 'queue_full' });
        throw new BudgetExceeded();
      }
      // Given back however the request ends: answered, refused while read, or cut off by the client.
      reply.raw.once('close', () => reservation.release());
      const at = deps.clock.now();
      const offsetMs = clocks.measure(host, request.headers[AGENT_TIME_HEADER], at);
      hosts.set(request, { host, tokenHash, at, offsetMs, reservation });
    });
    scope.addHook('onResponse', async (request) => hosts.get(request)?.reservation.release());
    scope.addHook('onError', async (_request, _reply, error) => {
      const status = error instanceof Problem ? error.status : (error as { statusCode?: number }).statusCode;
      if (status === 429) deps.metrics.ingestRejected.inc({ reason: 'rate_limited' });
      else if (status !== undefined && invalidStatuses.has(status)) {
        deps.metrics.ingestRejected.inc({ reason: 'invalid' });
      }
    });

    scope.post('/agent/v1/frames', async (request): Promise<FramesAnswer> => {
      const { host, tokenHash, at, offsetMs, reservation } = hosts.get(request)!;
      const type = request.headers['content-type'] ?? '';
      if (!/^application\/json\s*(;|$)/i.test(type) || !Buffer.isBuffer(request.body)) {
        throw new Problem(415, 'unsupported media type', 'send the frames as application/json');
      }
      // It may have filled while the body was read.
      if (queue.size >= maxWaiting) throw queueFull();
      const encoding = request.headers['content-encoding'];
      try {
        const decoded = await decodeFrames(
          request.body,
          Array.isArray(encoding) ? encoding.join(',') : encoding,
          reservation,
          (bytes) => limitJson(request, host, 'frames', bytes),
        ).catch((error: unknown) => {
          if (error instanceof BudgetExceeded) deps.metrics.ingestRejected.inc({ reason: 'queue_full' });
          throw error;
        });
        const { unknown, invalid, unknownItems, ...sent } = decoded;
        if (invalid.length > 0) {
          deps.metrics.ingestRejected.inc({ reason: 'invalid' }, invalid.length);
          invalidFrames(host, invalid);
        }
        if (unknownItems.length > 0) {
          deps.metrics.agentUnknownFrames.inc(unknownItems.length);
          unknownStates(host, unknownItems);
        }
        const { frames, skipped: ahead, aheadMs } = leaveOutAhead(placeOnServerClock(sent, offsetMs), at);
        if (ahead > 0) clockAhead(host, aheadMs, ahead);
        const item: FramesItem = {
          host,
          tokenHash,
          receivedAt: at,
          aheadMs,
          offsetMs,
          frames,
          outcome: null,
        };
        await queue.submit(item);
        const outcome = item.outcome!;
        const known = frameCount(frames);
        if (unknown > 0) deps.metrics.agentUnknownFrames.inc(unknown);
        const left = unknown + invalid.length + ahead;
        // A batch stored before is answered as it was then, and counted then.
        if (outcome.known) return { stored: known, skipped: left };
        const runsLeft = outcome.staleRuns + outcome.foreignRuns.length;
        deps.metrics.ingestAccepted.inc({ endpoint: 'agent' }, known - runsLeft);
        if (outcome.foreignRuns.length > 0) {
          deps.log.warn('agent runs skipped: their checks do not run on this host', {
            host,
            checks: [...new Set(outcome.foreignRuns)].join(', '),
          });
        }
        return { stored: known - runsLeft, skipped: runsLeft + left };
      } finally {
        reservation.release();
      }
    });
  });
  return budget;
}

/** The bytes a body will take as received: its Content-Length, or the most a body may be (chunked). */
function announcedBytes(contentLength: string | undefined): number {
  const length = contentLength === undefined ? Number.NaN : Number(contentLength);
  // Beyond the most, the body is refused (413) before it is read.
  return Number.isSafeInteger(length) && length >= 0 ? Math.min(length, MAX_FRAMES_BYTES) : MAX_FRAMES_BYTES;
}

/** Says in the log which frames of a host did not parse and were skipped, at most once a minute per host. */
function invalidWarnings(deps: Deps): (host: string, invalid: string[]) => void {
  const due = oncePerMinute(deps);
  return (host, invalid) => {
    if (!due(host)) return;
    deps.log.warn(`agent frames skipped: they do not parse (${invalid[0]})`, {
      host,
      frames: invalid.length,
    });
  };
}

/**
 * Says in the log which containers and units of a host's samples could not be read for a state or
 * health this server does not know (a newer agent; they stay as last seen), at most once a minute per host.
 */
function unknownStateWarnings(deps: Deps): (host: string, items: string[]) => void {
  const due = oncePerMinute(deps);
  return (host, items) => {
    if (!due(host)) return;
    deps.log.warn(`agent sample items not read: a state or health this server does not know (${items[0]})`, {
      host,
      items: items.length,
    });
  };
}
