import type { DatabaseSync } from 'node:sqlite';
import type { Cause } from '../../../protocol/incidents.ts';
import type { ServiceGraph } from '../graph.ts';

/** What an incident is about, for finding its likely causes. */
export type CauseScope = {
  /** When the incident started: only state changes before it can be causes. */
  start: number;
  /** Its services (the root service first) and hosts. */
  services: string[];
  hosts: string[];
};

/** The likely causes of an incident, best first; empty when none is found. docs/incidents.md: the formula. */
export function likelyCauses(_db: DatabaseSync, _scope: CauseScope, _graph: ServiceGraph): Cause[] {
  return [];
}
