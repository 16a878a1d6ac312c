import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AGENT_TIME_HEADER, POLL_WAIT_MS, type PollAnswer } from '../../protocol/agent.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { type AgentGate, tokenHolds, tokenNotValid } from './agent-auth.ts';
import type { AgentInfo, Assignments } from './assignment.ts';
import type { HostClocks } from './clock-ahead.ts';
import { fieldProblem } from './decode.ts';
import type { TokenBy } from './store.ts';

const pollQuerySchema = z.object({
  assignment: z.string().max(128).default(''),
  version: z.string().max(64).default(''),
  protocol: z.coerce.number().int().positive().optional(),
  capabilities: z.string().max(1024).default(''),
});

/** Polls of one host: a burst (an agent restarting, assignments changing), then one every 2 s. */
const POLL_BURST = 10;
const POLLS_PER_SECOND = 0.5;

type Waiter = {
  host: string;
  /** The token the poll came with: a poll whose token was replaced meanwhile is answered 401. */
  tokenHash: string;
  /** Who made that token: what its agent may be sent (assignment.ts). */
  tokenBy: TokenBy;
  agent: AgentInfo;
  tag: string;
  deadline: number;
  resolve: (a: PollAnswer) => void;
  reject: (error: unknown) => void;
};

export type Polls = {
  /** Answers every waiting poll now, and later polls at once (the server is stopping). */
  close(): void;
  /** Whether a poll of `host` is waiting. */
  waiting(host: string): boolean;
  /** `host`'s token was revoked (the host removed): its waiting poll is answered now, 401. */
  revoked(host: string): void;
};

/**
 * `GET /agent/v1/poll`: the checks the host's agent runs, its settings and the protocol version. A
 * poll whose `assignment` is the current one waits until it changes (a check added, changed, moved or
 * removed, mon.toml reloaded) or `POLL_WAIT_MS` passes. One waiting poll per host (a second answers
 * the first); one clock timer for all of them, since every poll waits the same time and the first
 * to wait is the first due. A poll whose token was replaced while it waited is answered 401.
 */
export function registerPoll(
  app: FastifyInstance,
  deps: Deps,
  engine: CheckEngine,
  assignments: Assignments,
  gate: AgentGate,
  clocks: HostClocks,
): Polls {
  const { clock } = deps;
  const limit = gate.hostLimiter(POLL_BURST, POLLS_PER_SECOND);
  const waiting = new Map<string, Waiter>();
  let timer: TimerHandle | null = null;
  let closed = false;

  /** The answer as of now; a check the agent is too old for is marked unknown, once, with the reason. */
  function current(host: string, agent: AgentInfo, tokenBy: TokenBy): PollAnswer {
    const { answer, gated } = assignments.answerFor(host, agent, tokenBy);
    for (const { id, reason } of gated) {
      const entry = engine.get(id);
      if (entry && !(entry.rec.state.status === 'unknown' && entry.rec.lastDetail === reason)) {
        engine.markUnknown(id, clock.now(), reason);
      }
    }
    return answer;
  }

  /** Answers a waiting poll: with `answer`, or the assignment as of now; 401 if its token was replaced. */
  function release(w: Waiter, answer?: PollAnswer): void {
    if (waiting.get(w.host) === w) waiting.delete(w.host);
    if (!tokenHolds(deps, w.host, w.tokenHash)) w.reject(tokenNotValid());
    else w.resolve(answer ?? current(w.host, w.agent, w.tokenBy));
  }

  function arm(): void {
    if (timer) clock.clearTimeout(timer);
    timer = null;
    const first = waiting.values().next();
    if (first.done) return;
    timer = clock.setTimeout(
      () => {
        timer = null;
        const now = clock.now();
        for (const w of [...waiting.values()]) {
          if (w.deadline > now) break;
          release(w);
        }
        arm();
      },
      Math.max(0, first.value.deadline - clock.now()),
    );
  }

  function wake(hosts: ReadonlySet<string> | null): void {
    for (const w of [...waiting.values()]) {
      if (hosts !== null && !hosts.has(w.host)) continue;
      const answer = current(w.host, w.agent, w.tokenBy);
      if (answer.assignment !== w.tag) release(w, answer);
    }
    if (waiting.size === 0) arm();
  }

  assignments.onChange((hosts) => wake(hosts));
  // A reload may change what checks may read from the environment (`[checks] api_env`).
  deps.config.onChange(() => wake(null));

  app.get('/agent/v1/poll', async (request, reply) => {
    gate.admit(request);
    const { host, tokenHash, tokenBy } = gate.host(request);
    limit(request, host, 'polls');
    // A poll is never a backlog: the agent's clock, as it sends it, against the server's.
    clocks.measure(host, request.headers[AGENT_TIME_HEADER], clock.now());
    const parsed = pollQuerySchema.safeParse(request.query);
    if (!parsed.success) throw fieldProblem(parsed.error, []);
    const query = parsed.data;
    const agent: AgentInfo = {
      version: query.version,
      capabilities: new Set(query.capabilities.split(',').map((c) => c.trim())),
    };
    const answer = current(host, agent, tokenBy);
    if (closed || answer.assignment !== query.assignment) return answer;
    return new Promise<PollAnswer>((resolve, reject) => {
      const before = waiting.get(host);
      if (before) release(before);
      const w: Waiter = {
        host,
        tokenHash,
        tokenBy,
        agent,
        tag: answer.assignment,
        deadline: clock.now() + POLL_WAIT_MS,
        resolve,
        reject,
      };
      waiting.set(host, w);
      // An agent that hangs up stops waiting; nobody would read its answer.
      reply.raw.once('close', () => {
        if (waiting.get(host) !== w) return;
        waiting.delete(host);
        if (waiting.size === 0) arm();
      });
      if (timer === null) arm();
    });
  });

  const polls: Polls = {
    close() {
      closed = true;
      for (const w of [...waiting.values()]) release(w);
      arm();
    },
    waiting: (host) => waiting.has(host),
    revoked(host) {
      const w = waiting.get(host);
      if (!w) return;
      release(w);
      arm();
    },
  };
  // Waiting polls would hold the server's close for up to POLL_WAIT_MS: they are answered first.
  app.addHook('preClose', async () => polls.close());
  return polls;
}
