import type { DatabaseSync } from 'node:sqlite';
import type { TimerHandle } from '../clock.ts';
import type { LiveConfig } from '../config/sections.ts';
import type { Deps } from '../deps.ts';
import type { EventSubscriber } from '../events.ts';
import { graphOf } from '../incidents/graph.ts';
import { alertsOf, getIncident } from '../incidents/store.ts';
import { all, int, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { muteOf } from './compose.ts';
import { type OutboxContext, queueNotifications } from './outbox.ts';

/**
 * Reminders: an open incident that nobody acknowledged is announced again to every channel each
 * `[notify] remind_every` (default 1 h) since it opened or was last reminded. Acknowledging stops
 * them, and so does the resolution: a reminder still waiting for a retry then is not sent
 * (`reminderOutdated`). An incident opened in maintenance gets none, nor does one under a silence, nor
 * a channel still trying to deliver an earlier message of the incident (outbox.ts). One clock timer
 * for the earliest reminder due; a restart after a long stop sends one reminder, not one per missed
 * interval.
 */

/** Open, unacknowledged incidents that notify: those reminders are for. */
const waiting = 'resolved_at IS NULL AND acknowledged_at IS NULL AND in_maintenance = 0';

const idRow = mapper({ id: text });
const atRow = mapper({ at: nullable(int) });

export function createReminders(deps: Pick<Deps, 'store' | 'clock' | 'config' | 'log'>, ctx: OutboxContext) {
  const { store, clock, log } = deps;
  let running = false;
  let timer: TimerHandle | null = null;
  let ticking: Promise<void> | null = null;
  let unsubscribe: (() => void) | null = null;
  /** After a write storage refused, the next try waits until then. */
  let pausedUntil = 0;

  const clear = () => {
    if (timer) clock.clearTimeout(timer);
    timer = null;
  };

  /** Sets the timer for the earliest reminder due. */
  const arm = () => {
    clear();
    const every = deps.config.current().notify.remindEveryMs;
    if (!running || every === null) return;
    const last = one(
      store.read,
      `SELECT min(coalesce(reminded_at, started_at)) AS at FROM incidents WHERE ${waiting}`,
      atRow,
    )?.at;
    if (last === null || last === undefined) return;
    timer = clock.setTimeout(
      () => {
        timer = null;
        ticking = remind().finally(() => {
          ticking = null;
          arm();
        });
      },
      Math.max(0, last + every - clock.now(), pausedUntil - clock.now()),
    );
  };

  /** Writes the reminders due now, a row per channel, and marks their incidents reminded. */
  const remind = async () => {
    const every = deps.config.current().notify.remindEveryMs;
    if (every === null) return;
    const now = clock.now();
    try {
      await store.writer.run((db, tx) => {
        const due = all(
          db,
          `SELECT id FROM incidents WHERE ${waiting} AND coalesce(reminded_at, started_at) <= ?
           ORDER BY started_at, id`,
          idRow,
          now - every,
        );
        for (const { id } of due) {
          queueNotifications(db, tx, ctx, { incident: id, change: 'reminder', ts: now, by: null, now });
          statement(db, 'UPDATE incidents SET reminded_at = ? WHERE id = ?').run(now, id);
        }
      });
    } catch (error) {
      // The same incidents are still due: try again in a minute.
      log.error('could not write reminders', { error: String(error) });
      pausedUntil = now + 60_000;
    }
  };

  /** Incident openings re-arm the timer once committed: the first may be sooner than any before. */
  const subscriber: EventSubscriber = (_db, events, _now, tx) => {
    if (events.some((e) => e.type === 'incident.change' && e.change === 'opened')) tx.afterCommit(arm);
  };

  return {
    subscriber,
    start() {
      running = true;
      unsubscribe = deps.config.onChange(arm);
      arm();
    },
    async stop() {
      running = false;
      unsubscribe?.();
      clear();
      await ticking;
    },
  };
}

/**
 * Why a reminder written earlier is no longer worth sending at `now`, or null: its incident was
 * resolved or acknowledged meanwhile, or a silence or maintenance window holds it now.
 */
export function reminderOutdated(
  db: DatabaseSync,
  config: Pick<LiveConfig, 'services'>,
  id: string,
  now: number,
): string | null {
  const incident = getIncident(db, id);
  if (!incident || incident.resolvedAt !== null) return 'resolved before it could be sent';
  if (incident.acknowledgedAt !== null) return 'acknowledged before it could be sent';
  const mute = muteOf(db, incident, alertsOf(db, [id]), graphOf(db, config.services), now);
  if (!mute.muted) return null;
  return mute.by === 'maintenance'
    ? 'in maintenance before it could be sent'
    : 'silenced before it could be sent';
}
