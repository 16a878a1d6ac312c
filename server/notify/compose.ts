import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { NotifyChange, WindowKind } from '../../protocol/notify.ts';
import type { ServiceGraph } from '../incidents/graph.ts';
import { openerScope, scopeOf } from '../incidents/scope.ts';
import type { AlertRecord, IncidentRecord } from '../incidents/store.ts';
import { holdsAt, mutedBy } from '../windows/active.ts';
import type { Message, MessageAlert } from './message.ts';

/**
 * The message of an incident change, composed in the transaction of the change from the incident as
 * it stands there, and what holds it back (a silence or a maintenance window).
 */

/** Alerts a message lists at most; the rest are counted ("and 3 more"). */
export const MAX_LISTED_ALERTS = 20;

/** A message's stable id: the same on every attempt (the webhook channel's `webhook-id`). */
export const newMessageId = () => `msg_${randomBytes(12).toString('hex')}`;

export function composeMessage(
  incident: IncidentRecord,
  alerts: readonly AlertRecord[],
  change: NotifyChange,
  ts: number,
  by: string | null,
  serverUrl: string | null,
  graph: ServiceGraph,
): Message {
  const failing = alerts.filter((a) => a.recoveredAt === null);
  // Once resolved nothing fails: the message lists what did, with when each recovered.
  const listed = incident.resolvedAt !== null ? alerts : failing;
  return {
    change,
    ts,
    incident: {
      id: incident.id,
      title: incident.title,
      service: incident.service,
      services: scopeOf(incident, alerts, graph).services,
      startedAt: incident.startedAt,
      acknowledgedAt: incident.acknowledgedAt,
      acknowledgedBy: incident.acknowledgedBy,
      resolvedAt: incident.resolvedAt,
      inMaintenance: incident.inMaintenance,
    },
    failing: listed.slice(0, MAX_LISTED_ALERTS).map(messageAlert),
    alertCount: alerts.length,
    failingCount: failing.length,
    cause: incident.topCause && {
      title: incident.topCause.title,
      score: incident.topCause.score,
      evidence: incident.topCause.evidence,
    },
    url: serverUrl === null ? null : `${serverUrl}/incidents/${incident.id}`,
    by: change === 'acknowledged' ? by : null,
  };
}

function messageAlert(a: AlertRecord): MessageAlert {
  return {
    name: a.name,
    service: a.service,
    host: a.host,
    detail: a.detail,
    since: a.openedAt,
    recoveredAt: a.recoveredAt,
    impact: a.impact,
  };
}

/**
 * Why an incident's notifications are held back: the kind of window and its id (null when it is
 * gone), or not held.
 */
export type Mute = { muted: false } | { muted: true; by: WindowKind; heldBy: string | null };

/**
 * An incident opened in maintenance notifies nobody (held by the maintenance window it opened in, or
 * null once that is gone); otherwise a silence or maintenance window holding it at `ts` mutes it. Both
 * judge the scope of what opened it (`openerScope`), as its maintenance mark did.
 */
export function muteOf(
  db: DatabaseSync,
  incident: IncidentRecord,
  alerts: readonly AlertRecord[],
  graph: ServiceGraph,
  ts: number,
): Mute {
  const scope = openerScope(incident, alerts, graph);
  if (incident.inMaintenance) {
    const window = holdsAt(db, scope, incident.startedAt).find((h) => h.kind === 'maintenance');
    return { muted: true, by: 'maintenance', heldBy: window?.id ?? null };
  }
  const hold = mutedBy(db, scope, ts);
  return hold ? { muted: true, by: hold.kind, heldBy: hold.id } : { muted: false };
}
