import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import { liveKeys } from '../../protocol/live.ts';
import type { NotifyChange } from '../../protocol/notify.ts';
import type { LiveConfig } from '../config/sections.ts';
import type { Deps } from '../deps.ts';
import type { EventSubscriber } from '../events.ts';
import { graphOf } from '../incidents/graph.ts';
import { alertsOf, getIncident } from '../incidents/store.ts';
import { deleting, pruneInChunks } from '../store/pruning.ts';
import { all, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { composeMessage, muteOf, newMessageId } from './compose.ts';
import { allChannels } from './targets.ts';

/**
 * The outbox (DESIGN rule 5): every notification is a row written in the transaction of the incident
 * change that caused it, one per channel, so it commits or rolls back with its cause; the sender
 * (sender.ts) delivers the rows once committed.
 */

export type OutboxContext = {
  config: () => LiveConfig;
  /** Tells the sender that rows are due; called after the commit. */
  wake: () => void;
};

/**
 * The subscriber of incident changes: an opening, an acknowledgement and a resolution each notify
 * every channel. An alert joining or recovering does not: the next message shows it.
 */
export function outboxSubscriber(ctx: OutboxContext): EventSubscriber {
  return (db, events, now, tx) => {
    for (const e of events) {
      if (e.type !== 'incident.change') continue;
      if (e.change === 'joined' || e.change === 'recovered') continue;
      queueNotifications(db, tx, ctx, { incident: e.incidentId, change: e.change, ts: e.ts, by: e.by, now });
    }
  };
}

export type Notification = {
  incident: string;
  change: NotifyChange;
  /** When the change happened. */
  ts: number;
  /** Who acknowledged (acknowledged only). */
  by: string | null;
  /** The job's time: when the rows are made and first due. */
  now: number;
};

const channelRow = mapper({ channel: text });

/**
 * Writes the rows of one change of an incident, a row per channel with the message composed now: `due`
 * at once, or `muted` with the window that holds it back. A reminder is written neither muted (it
 * would tell nobody anything: the opening's row shows the incident muted) nor for a channel that still
 * has a message of the incident due (that channel has not heard of the incident yet, or will hear of
 * it with the retry). Returns how many rows were written.
 */
export function queueNotifications(db: DatabaseSync, tx: Tx, ctx: OutboxContext, n: Notification): number {
  const config = ctx.config();
  const incident = getIncident(db, n.incident);
  let channels = allChannels(db, config);
  if (channels.length === 0 || !incident) return 0;
  const alerts = alertsOf(db, [incident.id]);
  const graph = graphOf(db, config.services);
  const mute = muteOf(db, incident, alerts, graph, n.ts);
  if (n.change === 'reminder') {
    if (mute.muted) return 0;
    const waiting = new Set(
      all(
        db,
        "SELECT DISTINCT channel FROM outbox WHERE incident = ? AND state = 'due'",
        channelRow,
        incident.id,
      ).map((r) => r.channel),
    );
    channels = channels.filter((c) => !waiting.has(c.name));
    if (channels.length === 0) return 0;
  }
  const message = JSON.stringify(
    composeMessage(incident, alerts, n.change, n.ts, n.by, config.server.url, graph),
  );
  const insert = statement(
    db,
    `INSERT INTO outbox (message_id, incident, channel, kind, change, message, created_at, state, due_at, held_by)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  for (const channel of channels) {
    insert.run(
      newMessageId(),
      incident.id,
      channel.name,
      channel.kind,
      n.change,
      message,
      n.now,
      mute.muted ? 'muted' : 'due',
      mute.muted ? null : n.now,
      mute.muted ? mute.heldBy : null,
    );
  }
  tx.invalidate(liveKeys.incident(incident.id));
  if (!mute.muted) tx.afterCommit(ctx.wake);
  return channels.length;
}

/**
 * How long a notification no longer due (sent, failed, muted or dropped) is kept: an incident's
 * deliveries, as its host events, for the year its record is read back, a little more. An open
 * incident reminds every channel every hour: kept for good, those rows would grow without end.
 */
export const SETTLED_KEEP_MS = 400 * DAY;

/** Deletes the notifications made more than SETTLED_KEEP_MS before `now` and no longer due, in chunks. */
export function pruneOutbox(deps: Deps, now: number): Promise<{ deleted: number; jobs: number }> {
  return pruneInChunks(deps.store.writer, () => [
    deleting(
      `DELETE FROM outbox WHERE id IN
         (SELECT id FROM outbox WHERE state <> 'due' AND created_at < ? LIMIT ?)`,
      now - SETTLED_KEEP_MS,
    ),
  ]);
}
