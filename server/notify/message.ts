import type { Evidence } from '../../protocol/incidents.ts';
import type { NotifyChange } from '../../protocol/notify.ts';

/**
 * A notification as every channel kind renders it: composed once, in the transaction of the incident
 * change (or the reminder) that caused it, and stored with its outbox row, so a message sent after a
 * restart or a retry says what it said at the change. `test` is the message of the test button.
 */
export type Message = {
  change: NotifyChange | 'test';
  /** When the change happened. */
  ts: number;
  incident: {
    id: string;
    title: string;
    /** The service whose alert opened it; null for an incident a host opened. */
    service: string | null;
    services: string[];
    startedAt: number;
    acknowledgedAt: number | null;
    acknowledgedBy: string | null;
    resolvedAt: number | null;
    /** Opened inside a maintenance window (such incidents notify nobody; kept for completeness). */
    inMaintenance: boolean;
  };
  /** What failed: the incident's alerts still failing at the change (all of them once resolved), oldest first. */
  failing: MessageAlert[];
  /** Alerts in the incident in all, to say "and 3 more" when `failing` was cut. */
  alertCount: number;
  failingCount: number;
  /** The top likely cause with its evidence, or null: "no likely cause found". */
  cause: { title: string; score: number; evidence: Evidence[] } | null;
  /** The incident in the panel (`[server] url` + `/incidents/<id>`), or null without `[server] url`. */
  url: string | null;
  /** Who acknowledged it (acknowledged only). */
  by: string | null;
};

export type MessageAlert = {
  name: string;
  service: string | null;
  host: string | null;
  detail: string;
  /** When it started failing. */
  since: number;
  recoveredAt: number | null;
  impact: boolean;
};
