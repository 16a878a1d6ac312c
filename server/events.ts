import type { DatabaseSync } from 'node:sqlite';
import type { CheckKind } from '../protocol/kinds.ts';
import type { CheckStatus } from './checks/state.ts';
import type { Tx } from './store/writer.ts';

/**
 * Domain events (DESIGN rule 2): state changes that other features react to. They are handled inside
 * the writer job that commits the change, so what a subscriber writes (an incident, an outbox row)
 * commits or rolls back together with its cause. Features add their events to this union.
 */
export type DomainEvent = CheckTransition;

/** A check changed status (server run, agent run, heartbeat ping or miss, agent silence). */
export type CheckTransition = {
  type: 'check.transition';
  checkId: string;
  name: string;
  service: string;
  kind: CheckKind | 'command';
  from: CheckStatus;
  to: CheckStatus;
  /** True when this ends a down spell (also through unknown): alerts say "recovered". */
  recovered: boolean;
  ts: number;
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

  subscribe(subscriber: EventSubscriber): () => void {
    this.subscribers.push(subscriber);
    return () => {
      const i = this.subscribers.indexOf(subscriber);
      if (i >= 0) this.subscribers.splice(i, 1);
    };
  }

  /** Hands `events` to every subscriber inside the caller's writer job. */
  dispatch(tx: Tx, events: readonly DomainEvent[], now: number): void {
    if (events.length === 0) return;
    for (const subscriber of this.subscribers) subscriber(tx.db, events, now, tx);
  }
}
