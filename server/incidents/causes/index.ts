import type { DatabaseSync } from 'node:sqlite';
import type { Cause } from '../../../protocol/incidents.ts';
import type { ServiceGraph } from '../graph.ts';
import { reachOf, type ScopeAlert } from './candidates.ts';
import { gatherCandidates } from './gather.ts';
import { rankCauses } from './score.ts';

/** What an incident is about, for finding its likely causes. */
export type CauseScope = {
  /** When the incident started: only state changes before it can be causes. */
  start: number;
  /** Its services (the root service first) and hosts. */
  services: string[];
  hosts: string[];
  /** Its alerts: what its own host alerts are about is a symptom, never a cause. */
  alerts: ScopeAlert[];
};

/**
 * The likely causes of an incident, best first (at most 5); empty when none is found. Reads the store
 * (a handful of queries, on `store.read` or inside a writer job) and ranks what it finds with the
 * formula docs/incidents.md publishes.
 */
export function likelyCauses(db: DatabaseSync, scope: CauseScope, graph: ServiceGraph): Cause[] {
  const reach = reachOf(scope, graph);
  return rankCauses(gatherCandidates(db, scope.start, reach), reach, scope.start);
}
