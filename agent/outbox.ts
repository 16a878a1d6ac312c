import type { AgentFrame } from '../protocol/agent.ts';
import type { Clock, TimerHandle } from '../server/clock.ts';
import { createBacklog } from './backlog.ts';
import type { AgentLog } from './log.ts';
import type { Spool } from './spool.ts';
import { encodeFrameJson, type FrameJson, frameJson, type SendResult, type Transport } from './transport.ts';

/**
 * The frames on their way to the server. Frames gather in memory until `flush` (every sample, or at
 * once when they pass FLUSH_BYTES); a flush writes them to the spool as request bodies (in memory when
 * the spool cannot take them: backlog.ts), and the sender sends the spool's files one at a time, oldest
 * first, deleting each after a 200. Failures keep the
 * files and wait: 1 s doubling to 60 s, or the server's Retry-After on 429 and 503. A batch the server
 * calls bad (400, 413, 422) is dropped, never sent again.
 *
 * Any other failure keeps the batch, however long it lasts: an outage (a proxy's 404 or 502, a 500, no
 * answer) fails every batch alike, and only the spool's bounds limit what is kept. Yet one batch the
 * server cannot store (a 500 for something in it) must not hold back the host's batches for ever: after
 * SET_ASIDE_TRIES failures of the oldest batch over at least SET_ASIDE_AFTER_MS (busy and a refused
 * token do not count: they blame no batch), the batch behind it is sent once as a test. Stored, and the
 * oldest fails once more: the oldest is set aside in `spool/rejected/` and the rest go on. Failing too:
 * the server (or the way to it) fails, not the batch; all are kept, tested again after as many failures.
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
/** The batch behind a failing one is sent as a test after this many failures of the oldest… */
export const SET_ASIDE_TRIES = 5;
/** …the first of them at least this long ago (with the backoff, about 8 tries). */
export const SET_ASIDE_AFTER_MS = 2 * 60_000;

export function createOutbox(deps: {
  spool: Spool;
  transport: Transport;
  log: AgentLog;
  clock: Clock;
}): Outbox {
  const { transport, log, clock } = deps;
  // The spool, and memory for the batches it cannot take (backlog.ts).
  const spool = createBacklog(deps.spool, log);
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
  /** The oldest file's failures since the last test of the batch behind it: how many, since when. */
  let blamed: { name: string; tries: number; since: number; behindStored: boolean } | null = null;
  /** A test found the batch behind the oldest failing too (logged once per outage). */
  let everyBatchFails = false;

  const flush = (): Promise<void> => {
    const frames = pending;
    pending = [];
    pendingBytes = 0;
    writing = writing.then(async () => {
      if (frames.length === 0) return;
      const { bodies, dropped } = await encodeFrameJson(frames);
      for (const frame of dropped) log.error(`a ${frame.kind} frame is too big to send: dropped`);
      for (const body of bodies) await spool.add(body);
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
        if (result.kind === 'bad') logBad(result);
        await spool.remove(file.name);
        if (failing) {
          const left = spool.size().files;
          log.info(`the server takes frames again${left > 0 ? `: sending ${left} waiting batches` : ''}`);
        }
        failing = null;
        failures = 0;
        everyBatchFails = false;
        continue;
      }
      report(result);
      // A busy server or a refused token says the batch is not to blame: only other failures count.
      if (result.kind !== 'failed') {
        backOff(result);
        return;
      }
      if (blamed?.name !== file.name) {
        blamed = { name: file.name, tries: 0, since: clock.now(), behindStored: false };
      }
      blamed.tries++;
      if (blamed.behindStored) {
        // The batch behind it was stored just before: it is this batch the server cannot take.
        await setAside(file.name, describe(result), blamed.tries);
        continue;
      }
      let last: SendResult = result;
      if (blamed.tries >= SET_ASIDE_TRIES && clock.now() - blamed.since >= SET_ASIDE_AFTER_MS) {
        const test = await testBehind(file.name);
        if (test === 'go on') continue;
        if (test !== null) last = test;
      }
      backOff(last);
      return;
    }
  };

  const backOff = (result: SendResult): void => {
    const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** failures, MAX_BACKOFF_MS);
    failures++;
    wait(result.kind === 'busy' && result.retryAfterMs !== null ? result.retryAfterMs : backoff);
  };

  /**
   * Sends the batch behind the failing oldest one once, to tell a batch the server cannot store from a
   * server (or a way to it) that stores nothing. 'go on' to try the oldest again at once: the test was
   * stored (so `behindStored`), or bad and dropped. Else the test's failure, or null when no batch is
   * behind (the oldest holds nothing back: it stays, and is tested when the next batch comes).
   */
  const testBehind = async (
    oldest: string,
  ): Promise<'go on' | Exclude<SendResult, { kind: 'stored' | 'bad' }> | null> => {
    const behind = await spool.after(oldest);
    if (!behind || !blamed) return null;
    const test = await transport.postFrames(behind.body);
    if (test.kind === 'stored' || test.kind === 'bad') {
      if (test.kind === 'bad') logBad(test);
      else blamed.behindStored = true;
      await spool.remove(behind.name);
      return 'go on';
    }
    // Busy or a refused token blames no batch: no verdict; the oldest waits as the answer says.
    if (test.kind !== 'failed') return test;
    // Every batch fails alike (an outage): all are kept; the next test after as many failures again.
    blamed = { name: oldest, tries: 0, since: clock.now(), behindStored: false };
    if (!everyBatchFails) {
      everyBatchFails = true;
      log.warn(
        `the next batch fails too (${describe(test)}): the server is failing, not a batch; keeping all`,
      );
    }
    return test;
  };

  const setAside = async (name: string, detail: string, tries: number): Promise<void> => {
    const what = `${detail} to the same batch ${tries} times, and stored the batch behind it`;
    try {
      await spool.setAside(name);
      log.error(`${what}: set aside in spool/rejected/${name}; sending the next`);
    } catch (error) {
      // Not movable: dropped rather than block the batches behind it.
      await spool.remove(name);
      log.error(`${what}; cannot set it aside (${(error as Error).message}): dropped`);
    }
    blamed = null;
    failing = null;
    failures = 0;
    everyBatchFails = false;
  };

  const logBad = (result: { status: number; detail: string }): void =>
    log.error(
      `the server refused a batch as bad (${result.status}${result.detail ? `: ${result.detail}` : ''}): dropped`,
    );

  const report = (result: Exclude<SendResult, { kind: 'stored' | 'bad' }>): void => {
    const kind = result.kind === 'failed' ? `failed:${result.detail}` : `${result.kind}:${result.status}`;
    if (kind === failing) return;
    failing = kind;
    const { files } = spool.size();
    const keeping = `keeping ${files} batch${files === 1 ? '' : 'es'} in the spool`;
    if (result.kind === 'refused') log.error(`the server refused the token (${result.status}); ${keeping}`);
    else if (result.kind === 'busy') log.warn(`the server is busy (${result.status}); ${keeping}`);
    else if (result.status === 404) {
      log.warn(
        `cannot send frames (the server answered 404 to POST /agent/v1/frames: a proxy that lost its route, MON_SERVER not the address of mon, or a mon server too old for this agent); ${keeping}`,
      );
    } else log.warn(`cannot send frames (${result.detail}); ${keeping}`);
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

/** A failure as the log says it: "the server answered 500", "ECONNREFUSED: …". */
function describe(result: Exclude<SendResult, { kind: 'stored' | 'bad' }>): string {
  return result.kind === 'failed' ? result.detail : `the server answered ${result.status}`;
}
