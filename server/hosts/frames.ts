import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FramesAnswer, RunFrame } from '../../protocol/agent.ts';
import type { RunOutcome } from '../../runners/run.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import { Problem } from '../problem.ts';
import type { IngestQueue } from '../store/ingest.ts';
import { agentHost, hostLimiter } from './agent-auth.ts';
import type { FramesItem } from './apply.ts';
import { decodeFrames } from './decode.ts';
import { MAX_AHEAD_MS } from './samples.ts';

/**
 * Requests of one host: a burst (what an agent kept through an outage, sent in several batches), then
 * one every 5 s, three times what an agent sampling every 15 s sends.
 */
const FRAMES_BURST = 20;
const FRAMES_PER_SECOND = 0.2;

/** Answers that refuse what was sent; they count as `mon_ingest_rejected_total{reason="invalid"}`. */
const invalidStatuses = new Set([400, 413, 415]);

/**
 * `POST /agent/v1/frames` (host token): a batch of frames, JSON, gzip or identity, at most 4 MiB as
 * sent. Answered 200 only once every frame is committed: host frames through the hosts' ingest queue,
 * runs through the check engine. A run of a check that is not this host's (another host's, or moved
 * away since the agent's last poll) is skipped, as is a frame of a kind this server does not know.
 */
export function registerFrames(
  app: FastifyInstance,
  deps: Deps,
  engine: CheckEngine,
  queue: IngestQueue<FramesItem>,
): void {
  const limit = hostLimiter(deps.clock, FRAMES_BURST, FRAMES_PER_SECOND);
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));

    const hosts = new WeakMap<FastifyRequest, { host: string; at: number }>();
    // Who sends, and whether they may, before a byte of the body is read.
    scope.addHook('onRequest', async (request) => {
      const host = agentHost(deps, request);
      limit(host, 'frames');
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
      const encoding = request.headers['content-encoding'];
      const decoded = await decodeFrames(
        request.body,
        Array.isArray(encoding) ? encoding.join(',') : encoding,
      );
      const runs = [...decoded.run]
        .sort((a, b) => a.ts - b.ts)
        .map((frame) => ({ frame, verdict: runVerdict(engine, host, frame, at) }));
      const item: FramesItem = {
        host,
        receivedAt: at,
        frames: { hello: decoded.hello, sample: decoded.sample, declare: decoded.declare, log: decoded.log },
        again: 0,
      };
      const removed = await Promise.all([
        queue.submit(item).then(() => 0),
        ...runs.filter((r) => r.verdict === 'record').map((r) => record(engine, r.frame)),
      ]);
      const known =
        decoded.hello.length +
        decoded.sample.length +
        decoded.declare.length +
        decoded.log.length +
        runs.length;
      const left = item.again + runs.filter((r) => r.verdict !== 'record').length + sum(removed);
      const stored = known - left;
      const skipped = left + decoded.unknown;
      if (decoded.unknown > 0) deps.metrics.agentUnknownFrames.inc(decoded.unknown);
      deps.metrics.ingestAccepted.inc({ endpoint: 'agent' }, stored);
      const foreign = runs.filter((r) => r.verdict === 'foreign').map((r) => r.frame.id);
      if (foreign.length > 0) {
        deps.log.warn('agent runs skipped: their checks do not run on this host', {
          host,
          checks: [...new Set(foreign)].join(', '),
        });
      }
      return { stored, skipped };
    });
  });
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/**
 * Whether a run is recorded: its check must run on this host (a server check whose `from` names it,
 * or its own command check), else it is `foreign`; and be newer than the check's last run, else it
 * was stored already (a batch sent again) or lost its place to a later run: `again`. A run dated
 * far ahead of the server's clock is left out as well.
 */
function runVerdict(
  engine: CheckEngine,
  host: string,
  frame: RunFrame,
  receivedAt: number,
): 'record' | 'foreign' | 'again' {
  const entry = engine.get(frame.id);
  if (!entry || entry.def.from !== host) return 'foreign';
  if (frame.ts > receivedAt + MAX_AHEAD_MS) return 'again';
  return entry.rec.lastRunAt === null || frame.ts > entry.rec.lastRunAt ? 'record' : 'again';
}

/** Records one run; 1 when its check was removed meanwhile (skipped), 0 when stored. */
async function record(engine: CheckEngine, frame: RunFrame): Promise<number> {
  const outcome: RunOutcome = {
    status: frame.status,
    latencyMs: frame.latencyMs,
    detail: frame.detail,
    ...(frame.value !== undefined && { value: frame.value }),
    ...(frame.expiry !== undefined && { expiry: frame.expiry }),
  };
  try {
    await engine.recordRun(frame.id, outcome, frame.ts);
    return 0;
  } catch (error) {
    if (error instanceof Problem && error.status === 404) return 1;
    throw error;
  }
}
