import type { Cause, CauseFactor, CauseKind, IncidentSummary } from '../../../../protocol/incidents.ts';
import { formatDuration } from '../../lib/format.ts';

/** Words for incidents, shared by the list, the incident page and the overview. */

/** How long it lasted, or has lasted until `now`. */
export function durationText(i: Pick<IncidentSummary, 'startedAt' | 'resolvedAt'>, now = Date.now()): string {
  return formatDuration((i.resolvedAt ?? now) - i.startedAt);
}

export const causeKindLabel: Record<CauseKind, string> = {
  deploy: 'Deploy',
  change: 'Change',
  dependency: 'Failing dependency',
  certificate: 'Certificate',
  domain: 'Domain',
  host: 'Host',
  container: 'Container',
  unit: 'systemd unit',
  agent: 'Silent agent',
};

export const factorLabel: Record<CauseFactor['name'], string> = {
  time: 'Time before the start',
  relation: 'Relation to the service',
  kind: 'Kind',
  counter: 'Counter-evidence',
};

/** A score (0 to 1) as a percentage of certainty: 0.82 → "82%". */
export function scoreText(score: number): string {
  return `${Math.round(score * 100)}%`;
}

/** The one line the list and the overview say about an incident's cause. */
export function topCauseText(cause: Cause | null): string {
  return cause ? `${cause.title} (${scoreText(cause.score)})` : 'No likely cause found';
}
