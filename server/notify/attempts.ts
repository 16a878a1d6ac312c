import type { DatabaseSync } from 'node:sqlite';
import { liveKeys } from '../../protocol/live.ts';
import { type ChannelKind, channelKinds, type NotifyChange } from '../../protocol/notify.ts';
import { insertEvent } from '../incidents/store.ts';
import { int, json, mapper, oneOf, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { nextAttempt } from './backoff.ts';
import type { ChannelTarget, SendResult } from './channels/kind.ts';
import { kindLabel } from './config.ts';
import type { Message } from './message.ts';
import { hideSecrets, secretsOf } from './secrets.ts';
import { utc } from './text.ts';

/**
 * What became of one attempt to send an outbox row, written in one writer job: the row's new state,
 * the thread its first send answered, and a `notification` row on the incident's timeline. Timeline
 * rows and errors never hold a channel's secret.
 */

/** An outbox row waiting to be sent. */
export type DueRow = {
  id: number;
  messageId: string;
  incident: string;
  channel: string;
  kind: ChannelKind;
  change: NotifyChange;
  message: Message;
  attempts: number;
  createdAt: number;
};

/** The columns of `dueRow`. */
export const dueColumns = 'id, message_id, incident, channel, kind, change, message, attempts, created_at';

export const dueRow = mapper({
  id: int,
  messageId: text,
  incident: text,
  channel: text,
  kind: oneOf(channelKinds),
  change: oneOf(['opened', 'reminder', 'acknowledged', 'resolved'] as const),
  message: json<Message>(),
  attempts: int,
  createdAt: int,
});

/**
 * What an attempt came to: the channel's answer, or not sent at all, with why (the channel is gone, or
 * a reminder is no longer needed).
 */
export type Outcome = { result: SendResult; channel: ChannelTarget } | { dropped: string };

const changeWords: Record<NotifyChange, string> = {
  opened: 'Incident opened',
  reminder: 'Reminder',
  acknowledged: 'Acknowledged',
  resolved: 'Resolved',
};

/** Records attempt number `attempt` of `row` at `now`. Writes nothing when the row is no longer due. */
export function recordAttempt(
  db: DatabaseSync,
  tx: Tx,
  row: DueRow,
  attempt: number,
  outcome: Outcome,
  now: number,
): void {
  const label = `${row.channel} (${kindLabel[row.kind]})`;
  const what = `${changeWords[row.change]}; attempt ${attempt}`;
  let title: string;
  let detail = what;
  let written: boolean;
  if ('dropped' in outcome) {
    written = update(db, row.id, { state: 'dropped', error: outcome.dropped, attempts: row.attempts });
    title = `Not sent to ${label}: ${outcome.dropped}`;
    detail = changeWords[row.change];
  } else if (outcome.result.ok) {
    written = update(db, row.id, { state: 'sent', attempts: attempt, at: now });
    // The first message, or one sent anew because the first was deleted: later changes edit this one.
    if (outcome.result.thread !== undefined) {
      statement(
        db,
        `INSERT INTO notify_threads (incident, channel, kind, ref) VALUES (?, ?, ?, ?)
         ON CONFLICT (incident, channel) DO UPDATE SET kind = excluded.kind, ref = excluded.ref`,
      ).run(row.incident, row.channel, row.kind, outcome.result.thread);
    }
    title = `Sent to ${label}`;
  } else {
    const error = hideSecrets(outcome.result.error, secretsOf(outcome.channel));
    const next = nextAttempt(outcome.result, attempt, row.createdAt, now);
    if (next.retry) {
      written = update(db, row.id, { state: 'due', attempts: attempt, at: now, error, dueAt: next.at });
      title = `${label} failed: ${error}; next attempt ${utc(next.at)}`;
    } else if (next.why === 'permanent') {
      written = update(db, row.id, { state: 'failed', attempts: attempt, at: now, error });
      title = `${label} failed: ${error}; not retried`;
      detail = `${what}. A permanent error: sending the same message again would fail the same way.`;
    } else {
      written = update(db, row.id, { state: 'failed', attempts: attempt, at: now, error });
      title = `Gave up on ${label} after a day: ${error}`;
    }
  }
  if (!written) return;
  insertEvent(db, row.incident, {
    ts: now,
    kind: 'notification',
    title,
    detail,
    check: null,
    service: null,
    host: null,
    by: null,
    url: null,
  });
  tx.invalidate(liveKeys.incident(row.incident));
}

function update(
  db: DatabaseSync,
  id: number,
  to: {
    state: 'due' | 'sent' | 'failed' | 'dropped';
    attempts: number;
    at?: number;
    error?: string;
    dueAt?: number;
  },
): boolean {
  const changed = statement(
    db,
    `UPDATE outbox SET state = ?, attempts = ?, last_attempt_at = coalesce(?, last_attempt_at),
       last_error = ?, sent_at = ?, due_at = ?
     WHERE id = ? AND state = 'due'`,
  ).run(
    to.state,
    to.attempts,
    to.at ?? null,
    to.error ?? null,
    to.state === 'sent' ? (to.at ?? null) : null,
    to.dueAt ?? null,
    id,
  );
  return Number(changed.changes) > 0;
}
