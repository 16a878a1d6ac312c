import { HOUR, MINUTE } from '../protocol/durations.ts';
import type { TimerHandle } from './clock.ts';
import type { Deps } from './deps.ts';

/** The housekeeping jobs, as /metrics and the log name them. */
export const housekeepingJobs = ['checks', 'hosts', 'analytics', 'windows', 'notify'] as const;
export type HousekeepingJob = (typeof housekeepingJobs)[number];

/**
 * The first pass runs this long after start, not a period later: a server restarted more often than
 * the period (a crash loop, frequent deploys) still prunes, and the file stops growing.
 */
export const FIRST_PASS_DELAY_MS = MINUTE;
/** Then a pass this long after the previous one ended. */
export const PASS_EVERY_MS = HOUR;

/** A step of a pass: its work, and the log line should it fail. A failed step does not stop the next. */
export type PassStep = { failed: string; run: () => Promise<unknown> };

/** What a pass is told: the time it began, and whether the job was stopped meanwhile. */
export type PassContext = { now: number; stopped: () => boolean };

export type Housekeeping = {
  start(): void;
  stop(): void;
  /**
   * Runs `work` after the pass or work of this job under way, never beside it, logging `failed` should
   * it throw (a removed host's data, purged outside the passes).
   */
  queue(failed: string, work: () => Promise<unknown>): Promise<void>;
  /** Resolves once the pass or work under way, if any, is done. */
  idle(): Promise<void>;
};

/**
 * One housekeeping job on one clock timer: a pass FIRST_PASS_DELAY_MS after start, then PASS_EVERY_MS
 * after each pass ended. A pass runs its steps in order. Its duration goes to
 * `mon_housekeeping_duration_seconds`; when every step succeeded, its start to
 * `mon_housekeeping_last_success_timestamp_seconds` and a line to the log, with the rows deleted when
 * the steps tell them (`{ deleted }`).
 */
export function housekeeping(
  deps: Deps,
  job: HousekeepingJob,
  stepsOf: (pass: PassContext) => PassStep[],
): Housekeeping {
  let timer: TimerHandle | null = null;
  let stopped = true;
  let chain: Promise<void> = Promise.resolve();
  const queue = (failed: string, work: () => Promise<unknown>): Promise<void> => {
    chain = chain.then(work).then(
      () => {},
      (error: unknown) => deps.log.warn(failed, { error: String(error) }),
    );
    return chain;
  };
  const pass = async () => {
    const now = deps.clock.now();
    const started = performance.now();
    let ok = true;
    let deleted = 0;
    for (const step of stepsOf({ now, stopped: () => stopped })) {
      try {
        const done = await step.run();
        if (typeof (done as { deleted?: unknown } | undefined)?.deleted === 'number') {
          deleted += (done as { deleted: number }).deleted;
        }
      } catch (error) {
        ok = false;
        deps.log.warn(step.failed, { error: String(error) });
      }
    }
    const ms = Math.round(performance.now() - started);
    deps.metrics.housekeepingDuration.set({ job }, ms / 1000);
    if (!ok) return;
    deps.metrics.housekeepingLastSuccess.set({ job }, now / 1000);
    deps.log.info('housekeeping pass done', { job, ms, deleted });
  };
  const plan = (delayMs: number) => {
    timer = deps.clock.setTimeout(() => {
      timer = null;
      void queue(`${job} housekeeping failed`, pass).finally(() => {
        if (!stopped) plan(PASS_EVERY_MS);
      });
    }, delayMs);
  };
  return {
    start() {
      if (!stopped) return;
      stopped = false;
      plan(FIRST_PASS_DELAY_MS);
    },
    stop() {
      stopped = true;
      if (timer) deps.clock.clearTimeout(timer);
      timer = null;
    },
    queue,
    idle: () => chain,
  };
}
