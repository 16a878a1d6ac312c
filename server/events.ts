import type { DatabaseSync } from 'node:sqlite';
import type { CheckKind } from '../protocol/kinds.ts';
import type { CheckStatus } from './checks/state.ts';
import type { Tx } from './store/writer.ts';

/**
 * Domain events (DESIGN rule 2): state changes that other features react to. They are handled inside
 * the writer job that commits the change, so what a subscriber writes (an incident, an outbox row)
 * commits or rolls back together with its cause. Features add their events to this union.
 */
export type DomainEvent = CheckTransition | CheckRemoved | HostAlert | HostRemoved | IncidentChange;

/** A check changed status (server run, agent run, heartbeat ping or miss, agent silence). */
export type CheckTransition = {
  type: 'check.transition';
  checkId: string;
  name: string;
  service: string;
  kind: CheckKind | 'command';
  /** The host whose agent runs it (its `from`; a command check's declaring host); null for the server's. */
  host: string | null;
  from: CheckStatus;
  to: CheckStatus;
  /** True when this ends a down spell (also through unknown): alerts say "recovered". */
  recovered: boolean;
  ts: number;
  detail: string;
};

/** A check was deleted, or taken out of mon.toml: whatever it was failing no longer stands. */
export type CheckRemoved = {
  type: 'check.removed';
  checkId: string;
  name: string;
  service: string;
  ts: number;
};

/**
 * A host alert started failing or recovered (docs/hosts.md): a threshold held for 5 minutes (a full
 * disk at once), a container of a service restarting in a loop, exited with an error or unhealthy, or
 * the host's agent gone silent. Incidents open or join from these as from check transitions.
 */
export type HostAlert = {
  type: 'host.alert';
  host: string;
  /** `host:<name>:<metric>`, `container:<host>:<container>` or `agent:<host>`, as in incident_alerts. */
  key: string;
  metric: 'cpu' | 'memory' | 'swap' | 'disk' | 'temperature' | 'container' | 'agent';
  /** What the alert names: "web-1 CPU", "api on web-1", "web-1 agent". */
  name: string;
  /** The container's service; null for the host's own alerts (the host opens an incident of its own). */
  service: string | null;
  state: 'failing' | 'recovered';
  ts: number;
  /** "CPU above 90% for 5 minutes (97%)", "restarted 4 times in 10 minutes", "no frame for 60 s". */
  detail: string;
  /**
   * What fails in a few words, for the incident's title and timeline ("CPU above 90%", "restarting in
   * a loop"); only when failing. Without it: "agent silent" for `agent`, else the detail.
   */
  summary?: string;
};

/**
 * A host was removed (`DELETE /api/v1/hosts/{name}`), the host counterpart of `check.removed`: its own
 * alerts and those of its containers no longer stand, and close as removed.
 */
export type HostRemoved = {
  type: 'host.removed';
  host: string;
  ts: number;
};

/**
 * An incident changed (docs/incidents.md): opened by an alert, another alert joined it (or one of its
 * alerts failed again), an alert recovered, someone acknowledged it, or it resolved. Notifications are
 * written from these, in the same transaction.
 */
export type IncidentChange = {
  type: 'incident.change';
  incidentId: string;
  change: 'opened' | 'joined' | 'recovered' | 'acknowledged' | 'resolved';
  ts: number;
  title: string;
  /** The service whose alert opened it; null for an incident a host opened. */
  service: string | null;
  /** The alert that opened, joined or recovered; null for acknowledged and resolved. */
  alert: IncidentAlertRef | null;
  /** Who acknowledged it (acknowledged only): an account's email or a token's label. */
  by: string | null;
  /** Opened inside a maintenance window. */
  inMaintenance: boolean;
};

/**
 * An alert as incident changes name it: `detail` is the failure, or for a recovery the run that
 * recovered it; `impact` = joined because its service depends on the incident's.
 */
export type IncidentAlertRef = {
  key: string;
  checkId: string | null;
  name: string;
  service: string | null;
  impact: boolean;
  detail: string;
};

/**
 * A transactional subscriber: runs synchronously inside the writer job that commits `events`, with its
 * connection. A throw rolls back the whole job, cause included. Work outside the database waits for the
 * commit through `tx.afterCommit` (waking a sender, say); live-update keys go through `tx.invalidate`.
 */
export type EventSubscriber = (db: DatabaseSync, events: readonly DomainEvent[], now: number, tx: Tx) => void;

/** The registry of transactional subscribers. Features subscribe while the server is composed. */
export class DomainEvents {
  private readonly subscribers: EventSubscriber[] = [];
  /** Events a subscriber dispatched while the current ones were being handled. */
  private pending: { events: readonly DomainEvent[]; now: number }[] | null = null;

  subscribe(subscriber: EventSubscriber): () => void {
    this.subscribers.push(subscriber);
    return () => {
      const i = this.subscribers.indexOf(subscriber);
      if (i >= 0) this.subscribers.splice(i, 1);
    };
  }

  /**
   * Hands `events` to every subscriber inside the caller's writer job. A subscriber may dispatch events
   * of its own (an incident opened by a check transition): they are handed out once every subscriber
   * has seen the current ones, so each subscriber sees a cause before its consequences.
   */
  dispatch(tx: Tx, events: readonly DomainEvent[], now: number): void {
    if (events.length === 0) return;
    if (this.pending) {
      this.pending.push({ events, now });
      return;
    }
    const pending = [{ events, now }];
    this.pending = pending;
    try {
      for (let next = pending.shift(); next; next = pending.shift()) {
        for (const subscriber of this.subscribers) subscriber(tx.db, next.events, next.now, tx);
      }
    } finally {
      // A throw rolls the whole job back: what was still queued goes with it.
      this.pending = null;
    }
  }
}
