import type { DatabaseSync } from 'node:sqlite';
import { channelKinds, type Delivery } from '../../protocol/notify.ts';
import { all, int, mapper, nullable, oneOf, text } from '../store/rows.ts';

/** The notifications of an incident for its read (`deliveries`), oldest first. */

const deliveryRow = mapper({
  id: text,
  channel: text,
  kind: oneOf(channelKinds),
  change: oneOf(['opened', 'reminder', 'acknowledged', 'resolved'] as const),
  state: oneOf(['due', 'sent', 'failed', 'muted', 'dropped'] as const),
  attempts: int,
  createdAt: int,
  lastAttemptAt: nullable(int),
  nextAttemptAt: nullable(int),
  sentAt: nullable(int),
  lastError: nullable(text),
  heldBy: nullable(text),
});

export function deliveriesOf(db: DatabaseSync, incident: string): Delivery[] {
  return all(
    db,
    `SELECT message_id AS id, channel, kind, change, state, attempts, created_at, last_attempt_at,
            due_at AS next_attempt_at, sent_at, last_error, held_by
     FROM outbox WHERE incident = ? ORDER BY outbox.id`,
    deliveryRow,
    incident,
  );
}
