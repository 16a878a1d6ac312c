import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { all, int, mapper, nullable, one, scalar, text } from '../store/rows.ts';
import { type DueRow, dueColumns, dueRow, type Outcome, recordAttempt } from './attempts.ts';
import { dropForChannelsGone } from './channel-gone.ts';
import { channelImpls } from './channels/index.ts';
import { type ChannelTarget, type Reach, resultOfError, type SendResult } from './channels/kind.ts';
import { reminderOutdated } from './reminders.ts';
import { allChannels } from './targets.ts';

/**
 * The sender: delivers committed outbox rows (outbox.ts) and records each attempt (attempts.ts). One
 * clock timer for the earliest `due_at`; at most `concurrency` sends at once. At start it takes every
 * row still due, those whose send was cut by a crash included: a notification arrives at least once.
 * Rows of one incident and channel go in order: a later one waits while an earlier one is due, so a
 * resolution never overtakes the opening it edits. Rows of a channel the configuration does not have
 * now (mon.toml has an error) are left due until it has it again (channel-gone.ts says when they are
 * dropped instead).
 */

export type SenderOptions = {
  /** How sends reach the platforms (tests point them at loopback receivers). */
  reach: Reach;
  /** Sends in flight at most. */
  concurrency?: number;
};

/** After a write that storage refused, sending pauses this long (the row is still due). */
const STORAGE_PAUSE_MS = 60_000;
/** While sends are in flight, results are written together at most this often. */
const RECORD_WINDOW_MS = 50;
/** While sends are in flight, rows due are counted at most this often (a count reads every one). */
const COUNT_EVERY_MS = 250;

/** Rows due now for the channels named (`<kind>:<name>`, a JSON array), in the order to send them. */
const READY = `
  SELECT id FROM outbox o
  WHERE state = 'due' AND due_at <= ? AND o.kind || ':' || o.channel IN (SELECT value FROM json_each(?))
    AND NOT EXISTS (SELECT 1 FROM outbox e WHERE e.incident = o.incident AND e.channel = o.channel
                    AND e.state = 'due' AND e.id < o.id)
  ORDER BY due_at, id LIMIT ?`;

const readyRow = mapper({ id: int });
const nextDue = mapper({ at: nullable(int) });
const threadRow = mapper({ ref: text });

/** A result waiting to be written, with the attempt's promise to settle once it is. */
type Finished = {
  row: DueRow;
  attempt: number;
  outcome: Outcome;
  at: number;
  recorded: () => void;
  failed: (error: unknown) => void;
};

export function createSender(
  deps: Pick<Deps, 'store' | 'clock' | 'config' | 'metrics' | 'log'>,
  options: SenderOptions,
) {
  const { store, clock, log } = deps;
  const concurrency = options.concurrency ?? 64;
  const refill = Math.max(1, Math.floor(concurrency / 8));
  /** Sends in flight (counted against the cap), by row id. */
  const sending = new Map<number, AbortController>();
  /** Rows taken and not yet recorded (sending, or waiting for their result to commit): never taken twice. */
  const taken = new Map<number, Promise<void>>();
  /** Results waiting for the writer: written together, one commit for all that finished meanwhile. */
  let finished: Finished[] = [];
  let recording = false;
  let running = false;
  let woken = false;
  let timer: TimerHandle | null = null;
  let timerAt = Number.POSITIVE_INFINITY;
  let pausedUntil = 0;
  let countedAt = Number.NEGATIVE_INFINITY;
  let unsubscribe: (() => void) | null = null;
  /** The jobs dropping rows of channels gone: the stop waits for them. */
  let dropping: Promise<unknown> = Promise.resolve();

  /** Starts what is due, counts what waits, and sets the timer for the next row to come due. */
  const pump = () => {
    if (!running) return;
    const now = clock.now();
    try {
      if (now >= pausedUntil && sending.size < concurrency) {
        // Channels are looked up by name once per look at the rows; only theirs are ready.
        const channels = new Map(allChannels(store.read, deps.config.current()).map((c) => [c.name, c]));
        const names = JSON.stringify([...channels.values()].map((c) => `${c.kind}:${c.name}`));
        const rows = all(store.read, READY, readyRow, now, names, concurrency + taken.size);
        for (const row of rows) {
          if (sending.size >= concurrency) break;
          if (taken.has(row.id)) continue;
          begin(row.id, channels);
        }
      }
      // mon_outbox_due: counted whenever the sender is idle, and at most every COUNT_EVERY_MS while busy.
      if (taken.size === 0 || performance.now() - countedAt >= COUNT_EVERY_MS) {
        countedAt = performance.now();
        deps.metrics.outboxDue.set(
          scalar(store.read, "SELECT count(*) AS n FROM outbox WHERE state = 'due'", int),
        );
      }
      const next = one(
        store.read,
        "SELECT min(due_at) AS at FROM outbox WHERE state = 'due' AND due_at > ?",
        nextDue,
        now,
      )?.at;
      if (next != null) arm(next);
      if (pausedUntil > now) arm(pausedUntil);
    } catch (error) {
      log.error('could not read the notifications due', { error: String(error) });
      arm(now + STORAGE_PAUSE_MS);
    }
  };

  const arm = (at: number) => {
    if (at >= timerAt) return;
    if (timer) clock.clearTimeout(timer);
    timerAt = at;
    timer = clock.setTimeout(
      () => {
        timer = null;
        timerAt = Number.POSITIVE_INFINITY;
        pump();
      },
      Math.max(0, at - clock.now()),
    );
  };

  const begin = (id: number, channels: ReadonlyMap<string, ChannelTarget>) => {
    const row = one(
      store.read,
      `SELECT ${dueColumns} FROM outbox WHERE id = ? AND state = 'due'`,
      dueRow,
      id,
    );
    const channel = row && channels.get(row.channel);
    if (!row || channel?.kind !== row.kind) return;
    const controller = new AbortController();
    sending.set(id, controller);
    const done = attempt(row, channel, controller.signal)
      .catch((error: unknown) => {
        // Storage refused the result: the row is still due; wait before trying it (or any) again.
        log.error('could not record a notification attempt', { error: String(error) });
        pausedUntil = clock.now() + STORAGE_PAUSE_MS;
      })
      .finally(() => {
        sending.delete(id);
        taken.delete(id);
        freed();
      });
    taken.set(id, done);
  };

  const attempt = async (row: DueRow, channel: ChannelTarget, signal: AbortSignal) => {
    const number = row.attempts + 1;
    let outcome: Outcome;
    // A reminder that waited for a retry while the incident was acknowledged, resolved or muted.
    const outdated =
      row.change === 'reminder'
        ? reminderOutdated(store.read, deps.config.current(), row.incident, clock.now())
        : null;
    if (outdated) outcome = { dropped: outdated };
    else {
      // A thread of another kind was left by an earlier channel of this name: not this one's to edit.
      const thread =
        one(
          store.read,
          'SELECT ref FROM notify_threads WHERE incident = ? AND channel = ? AND kind = ?',
          threadRow,
          row.incident,
          row.channel,
          row.kind,
        )?.ref ?? null;
      let result: SendResult;
      try {
        result = await channelImpls[channel.kind].send({
          channel,
          message: row.message,
          messageId: row.messageId,
          attempt: number,
          thread,
          ...options.reach,
          signal,
        });
      } catch (error) {
        result = resultOfError(error);
      }
      // Cut short by the stop: the row stays due and goes again after the restart.
      if (signal.aborted && !result.ok) return;
      outcome = { result, channel };
    }
    // The slot is free for the next send while the result waits for its commit.
    sending.delete(row.id);
    freed();
    await new Promise<void>((recorded, failed) => {
      finished.push({ row, attempt: number, outcome, at: clock.now(), recorded, failed });
      record();
    });
  };

  /** Writes every finished result in one job, then the next batch if more finished meanwhile. */
  const record = () => {
    if (recording || finished.length === 0) return;
    recording = true;
    const batch = finished;
    finished = [];
    store.writer
      .run((db, tx) => {
        for (const f of batch) recordAttempt(db, tx, f.row, f.attempt, f.outcome, f.at);
      })
      .then(
        () => {
          for (const f of batch) f.recorded();
        },
        (error: unknown) => {
          for (const f of batch) f.failed(error);
        },
      )
      .finally(() => {
        // While sends are in flight, more results come soon: gather them for a moment, since every
        // commit waits for the disk and holds the event loop meanwhile.
        const wait = sending.size > 0 ? RECORD_WINDOW_MS : 0;
        setTimeout(() => {
          recording = false;
          record();
        }, wait);
      });
  };

  /**
   * A send finished: look again once a few slots are free (or none is busy), not after every send: a
   * look reads the rows due, and a burst of thousands would read them thousands of times.
   */
  const freed = () => {
    if (sending.size === 0 || concurrency - sending.size >= refill) wake();
  };

  /** Rows were committed or a send finished: look again, once, on the next turn of the event loop. */
  const wake = () => {
    if (!running || woken) return;
    woken = true;
    setImmediate(() => {
      woken = false;
      pump();
    });
  };

  /**
   * mon.toml loaded without an error (at the start, or reloaded): rows of channels it no longer has
   * are dropped, and rows of channels it has again are ready.
   */
  const configLoaded = () => {
    const job = store.writer
      .run((db, tx) => dropForChannelsGone(db, tx, deps.config.current(), clock.now()))
      .catch((error: unknown) => {
        log.error('could not drop the notifications of removed channels', { error: String(error) });
      })
      // Look again once the drop has committed too: the rows due are counted anew (mon_outbox_due).
      .finally(wake);
    dropping = Promise.all([dropping, job]);
    wake();
  };

  return {
    wake,
    start() {
      running = true;
      unsubscribe = deps.config.onChange(configLoaded);
      if (deps.config.error() === null) configLoaded();
      pump();
    },
    /** Stops the timer, aborts the sends in flight (their rows stay due) and waits for them. */
    async stop() {
      running = false;
      unsubscribe?.();
      await dropping;
      if (timer) clock.clearTimeout(timer);
      timer = null;
      timerAt = Number.POSITIVE_INFINITY;
      for (const controller of sending.values()) controller.abort(new Error('mon is stopping'));
      await Promise.all(taken.values());
    },
    /** Sends in flight now. */
    get active() {
      return sending.size;
    },
  };
}
