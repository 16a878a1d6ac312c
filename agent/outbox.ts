import type { AgentFrame } from '../protocol/agent.ts';
import type { Clock, TimerHandle } from '../server/clock.ts';
import type { AgentLog } from './log.ts';
import type { Spool } from './spool.ts';
import { encodeFrameJson, type FrameJson, frameJson, type SendResult, type Transport } from './transport.ts';

/**
 * The frames on their way to the server. Frames gather in memory until `flush` (every sample, or at
 * once when they pass FLUSH_BYTES); a flush writes them to the spool as request bodies, and the sender
 * sends the spool's files one at a time, oldest first, deleting each after a 200. Failures keep the
 * files and wait: 1 s doubling to 60 s, or the server's Retry-After on 429 and 503. A batch the server
 * calls bad (400, 413, 422) is dropped, never sent again. A batch the server keeps failing on with
 * another status (a 500: something in it the server cannot store) is set aside in `spool/rejected/`
 * after SET_ASIDE_TRIES such answers over at least SET_ASIDE_AFTER_MS, so that the batches behind it
 * go on: one batch must not silence the host. 502 and 504 are a proxy's word that the server is down,
 * and never set a batch aside (nor do no answer, 429, 503 or a refused token, which every batch gets).
 */
export type Outbox = {
  add(frame: AgentFrame): void;
  /** Writes the gathered frames to the spool and starts sending. */
  flush(): Promise<void>;
  /** Ends the wait after a failure and sends now (the server answered a poll). */
  retryNow(): void;
  /** Flushes into the spool and waits (at most `waitMs`) for a send in flight; sends nothing more. */
  stop(waitMs?: number): Promise<void>;
};

/** Frames gathered past this size (as JSON) are flushed at once, not at the next sample. */
export const FLUSH_BYTES = 1024 * 1024;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** A batch is set aside after this many failing answers of its own… */
export const SET_ASIDE_TRIES = 5;
/** …the first of them at least this long ago (with the backoff, about 8 tries). */
export const SET_ASIDE_AFTER_MS = 2 * 60_000;
/** Statuses of a proxy before a server that is down: the batch is not to blame. */
const GATEWAY_STATUSES = new Set([502, 504]);

export function createOutbox(deps: {
  spool: Spool;
  transport: Transport;
  log: AgentLog;
  clock: Clock;
}): Outbox {
  const { spool, transport, log, clock } = deps;
  let pending: FrameJson[] = [];
  let pendingBytes = 0;
  // One write to the spool at a time, in order.
  let writing: Promise<void> = Promise.resolve();
  let sending: Promise<void> | null = null;
  let waitTimer: TimerHandle | null = null;
  let failures = 0;
  let stopped = false;
  /** The kind of the last failure, so that a run of failures is logged once and the recovery once. */
  let failing: string | null = null;
  /** The oldest file's failing answers that blame the batch: how many, since when. */
  let blamed: { name: string; tries: number; since: number } | null = null;

  const flush = (): Promise<void> => {
    const frames = pending;
    pending = [];
    pendingBytes = 0;
    writing = writing.then(async () => {
      if (frames.length === 0) return;
      const { bodies, dropped } = await encodeFrameJson(frames);
      for (const frame of dropped) log.error(`a ${frame.kind} frame is too big to send: dropped`);
      for (const body of bodies) {
        try {
          await spool.add(body);
        } catch (error) {
          log.error(`cannot write to the spool (${(error as Error).message}): ${frames.length} frames lost`);
        }
      }
    });
    return writing.then(() => kick());
  };

  const kick = (): void => {
    if (stopped || sending || waitTimer) return;
    sending = drain().finally(() => {
      sending = null;
    });
  };

  const wait = (ms: number): void => {
    waitTimer = clock.setTimeout(() => {
      waitTimer = null;
      kick();
    }, ms);
  };

  const drain = async (): Promise<void> => {
    while (!stopped) {
      const file = await spool.oldest();
      if (!file) return;
      const result = await transport.postFrames(file.body);
      if (result.kind === 'stored' || result.kind === 'bad') {
        if (result.kind === 'bad') {
          log.error(
            `the server refused a batch as bad (${result.status}${result.detail ? `: ${result.detail}` : ''}): dropped`,
          );
        }
        await spool.remove(file.name);
        if (failing) {
          const left = spool.size().files;
          log.info(`the server takes frames again${left > 0 ? `: sending ${left} waiting batches` : ''}`);
        }
        failing = null;
        failures = 0;
        continue;
      }
      report(result);
      if (result.kind === 'failed' && result.status !== undefined && !GATEWAY_STATUSES.has(result.status)) {
        if (blamed?.name !== file.name) blamed = { name: file.name, tries: 0, since: clock.now() };
        blamed.tries++;
        if (blamed.tries >= SET_ASIDE_TRIES && clock.now() - blamed.since >= SET_ASIDE_AFTER_MS) {
          await setAside(file.name, result.detail, blamed.tries);
          continue;
        }
      }
      const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** failures, MAX_BACKOFF_MS);
      failures++;
      wait(result.kind === 'busy' && result.retryAfterMs !== null ? result.retryAfterMs : backoff);
      return;
    }
  };

  const setAside = async (name: string, detail: string, tries: number): Promise<void> => {
    try {
      await spool.setAside(name);
      log.error(
        `${detail} to the same batch ${tries} times: set aside in spool/rejected/${name}; sending the next`,
      );
    } catch (error) {
      // Not movable: dropped rather than block the batches behind it.
      await spool.remove(name);
      log.error(
        `${detail} to the same batch ${tries} times; cannot set it aside (${(error as Error).message}): dropped`,
      );
    }
    blamed = null;
    failing = null;
    failures = 0;
  };

  const report = (result: Exclude<SendResult, { kind: 'stored' | 'bad' }>): void => {
    const kind = result.kind === 'failed' ? `failed:${result.detail}` : `${result.kind}:${result.status}`;
    if (kind === failing) return;
    failing = kind;
    const { files } = spool.size();
    const keeping = `keeping ${files} batch${files === 1 ? '' : 'es'} in the spool`;
    if (result.kind === 'refused') log.error(`the server refused the token (${result.status}); ${keeping}`);
    else if (result.kind === 'busy') log.warn(`the server is busy (${result.status}); ${keeping}`);
    else log.warn(`cannot send frames (${result.detail}); ${keeping}`);
  };

  return {
    add(frame) {
      // Not checked against the frame schemas: frames are built by typed code within the protocol's
      // bounds, and the server checks every batch (a 400 or 422 names the field, logged below).
      if (stopped) return;
      const entry = frameJson(frame);
      pending.push(entry);
      pendingBytes += entry.json.length;
      if (pendingBytes >= FLUSH_BYTES) void flush();
    },
    flush,
    retryNow() {
      if (!waitTimer) return;
      clock.clearTimeout(waitTimer);
      waitTimer = null;
      kick();
    },
    async stop(waitMs = 3000) {
      const written = flush();
      stopped = true;
      if (waitTimer) clock.clearTimeout(waitTimer);
      waitTimer = null;
      await written;
      if (sending) {
        await Promise.race([sending, new Promise((resolve) => setTimeout(resolve, waitMs).unref())]);
      }
    },
  };
}
