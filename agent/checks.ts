import type { AssignedCheck, DeclaredCheck, PollAnswer, RunFrame } from '../protocol/agent.ts';
import type { CheckDefinition } from '../protocol/check.ts';
import type { RunContext, Runner, RunOutcome, ServerRunKind } from '../runners/run.ts';
import type { Clock, TimerHandle } from '../server/clock.ts';
import { runCommand } from './command.ts';
import type { AgentLog } from './log.ts';

/**
 * Runs the checks the server assigns to this agent: its own checks whose `from` names the host
 * (http, tcp, dns, ping, domain), with the same runners as the server (runners/index.ts), and the
 * command checks of checks.toml the server accepted. Each check on its own interval, started at a
 * point of it that its id decides (so a hundred checks of 1m do not all start on the same second), at
 * most one run of a check at a time (a run still going when the next is due skips that one), each run
 * aborted at its timeout. Every result becomes a `run` frame.
 */
export type CheckRunner = {
  /** Applies a poll's assignment: new checks start, changed ones start again, removed ones stop. */
  assign(assignment: Pick<PollAnswer, 'checks' | 'commands'>, declared: readonly DeclaredCheck[]): void;
  /** The ids of the checks it runs. */
  running(): string[];
  /** Stops every check (runs in flight are aborted, their results dropped). */
  stop(): void;
};

type Job = {
  id: string;
  /** The definition as given: a change of any field starts the check again. */
  key: string;
  everyMs: number;
  run: (signal: AbortSignal) => Promise<RunOutcome>;
  timer: TimerHandle | null;
  inFlight: AbortController | null;
};

/** The longest `detail` a run frame carries. */
const MAX_DETAIL = 2000;

export function createCheckRunner(deps: {
  clock: Clock;
  log: AgentLog;
  onRun: (frame: RunFrame) => void;
  /** The environment command checks run with (commandEnv of command.ts). */
  commandEnv: NodeJS.ProcessEnv;
  /** The runners by kind: the server's own; tests may add context (resolvers) through `context`. */
  runners?: Record<ServerRunKind, Runner>;
  context?: Partial<Omit<RunContext, 'runBy' | 'env' | 'signal' | 'now'>>;
}): CheckRunner {
  const { clock, log } = deps;
  // The runners are loaded with the first check to run: they bring TLS and DNS, which cost an agent
  // without server checks several MB of memory for nothing.
  let loading: Promise<Record<ServerRunKind, Runner>> | null = deps.runners
    ? Promise.resolve(deps.runners)
    : null;
  const runners = () => (loading ??= import('../runners/index.ts').then((loaded) => loaded.runners));
  const jobs = new Map<string, Job>();
  /** What was logged about a check that cannot run, so it is said once. */
  const said = new Set<string>();

  const once = (key: string, text: string) => {
    if (said.has(key)) return;
    said.add(key);
    log.warn(text);
  };

  const cancel = (job: Job) => {
    if (job.timer) clock.clearTimeout(job.timer);
    job.timer = null;
    job.inFlight?.abort();
    job.inFlight = null;
  };

  const fire = (job: Job) => {
    job.timer = clock.setTimeout(() => fire(job), job.everyMs);
    if (job.inFlight) return;
    const controller = new AbortController();
    job.inFlight = controller;
    const ts = clock.now();
    void job.run(controller.signal).then(
      (outcome) => {
        // Stopped or changed meanwhile: the result is of a definition that no longer runs.
        if (job.inFlight !== controller) return;
        job.inFlight = null;
        deps.onRun(runFrameOf(job.id, ts, outcome));
      },
      (error: unknown) => {
        if (job.inFlight !== controller) return;
        job.inFlight = null;
        deps.onRun(
          runFrameOf(job.id, ts, { status: 'down', latencyMs: null, detail: `internal error: ${error}` }),
        );
      },
    );
  };

  const start = (job: Job) => {
    jobs.set(job.id, job);
    job.timer = clock.setTimeout(() => fire(job), delayToPhase(job.id, job.everyMs, clock.now()));
  };

  return {
    assign(assignment, declared) {
      const wanted = new Map<string, Omit<Job, 'timer' | 'inFlight'>>();
      for (const check of assignment.checks) {
        if (check.kind === 'heartbeat') {
          once(
            `kind:${check.id}`,
            `check ${check.name}: a heartbeat is pushed to the server, not run by an agent`,
          );
          continue;
        }
        const { kind } = check;
        const definition = definitionOf(check);
        const context = (signal: AbortSignal): RunContext => ({
          ...deps.context,
          runBy: 'agent',
          env: check.env,
          signal,
          now: () => clock.now(),
        });
        wanted.set(check.id, {
          id: check.id,
          key: JSON.stringify(check),
          everyMs: check.everyMs,
          run: async (signal) => (await runners())[kind](definition, context(signal)),
        });
      }
      for (const { id, name } of assignment.commands) {
        const check = declared.find((d) => d.name === name);
        if (!check) {
          once(
            `command:${id}`,
            `command check ${name}: the server lists it, but this agent's checks.toml has no such check`,
          );
          continue;
        }
        wanted.set(id, {
          id,
          key: JSON.stringify(check),
          everyMs: check.everyMs,
          run: (signal) =>
            runCommand({ command: check.command, timeoutMs: check.timeoutMs, signal, env: deps.commandEnv }),
        });
      }
      for (const [id, job] of jobs) {
        if (wanted.get(id)?.key === job.key) continue;
        cancel(job);
        jobs.delete(id);
      }
      for (const [id, job] of wanted) {
        if (!jobs.has(id)) start({ ...job, timer: null, inFlight: null });
      }
    },
    running: () => [...jobs.keys()],
    stop() {
      for (const job of jobs.values()) cancel(job);
      jobs.clear();
    },
  };
}

/** The check as the runners take it (the server's own definition type). */
export function definitionOf(check: AssignedCheck): CheckDefinition {
  return {
    name: check.name,
    service: '',
    kind: check.kind,
    target: check.target,
    method: check.method,
    headers: check.headers,
    everyMs: check.everyMs,
    timeoutMs: check.timeoutMs,
    from: null,
    expect: check.expect,
    cron: null,
    timezone: 'UTC',
    graceMs: 0,
    allowLinkLocal: check.allowLinkLocal,
  };
}

export function runFrameOf(id: string, ts: number, outcome: RunOutcome): RunFrame {
  const detail =
    outcome.detail.length > MAX_DETAIL ? `${outcome.detail.slice(0, MAX_DETAIL - 1)}…` : outcome.detail;
  return {
    kind: 'run',
    ts,
    id,
    status: outcome.status,
    latencyMs: outcome.latencyMs,
    detail,
    ...(outcome.value !== undefined ? { value: outcome.value } : {}),
    ...(outcome.expiry !== undefined ? { expiry: outcome.expiry } : {}),
  };
}

/**
 * Time from `now` to the check's next start: each check runs at a fixed point of its interval that its
 * id decides (FNV-1a), the same after a restart or a reassignment.
 */
export function delayToPhase(id: string, everyMs: number, now: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  const phase = hash % everyMs;
  return (((phase - now) % everyMs) + everyMs) % everyMs;
}
