import type { DeployRow } from '../../../protocol/deploys.ts';
import type { Cause, CauseFactor } from '../../../protocol/incidents.ts';
import { round } from '../../checks/rollups.ts';
import { type Candidate, type Reach, relationOf, subjectOf } from './candidates.ts';
import { describe } from './describe.ts';
import {
  KIND_WEIGHT,
  MAX_CAUSES,
  MIN_SCORE,
  RELATION_WEIGHT,
  timeScaleOf,
  timeWeight,
  weightedKind,
  when,
} from './formula.ts';

/**
 * The likely causes among `candidates` of an incident that started at `start`, best first: highest
 * score, then closest to the start, then by id. A pure function: the same candidates always rank the
 * same. Each factor is rounded to 3 decimals and the score is their product, rounded the same way, so
 * the breakdown shown multiplies to the score shown. Candidates after the start, beyond their time
 * window, related to other services only, or scoring below MIN_SCORE are left out.
 */
export function rankCauses(candidates: readonly Candidate[], reach: Reach, start: number): Cause[] {
  const ranked: { cause: Cause; at: number; key: string }[] = [];
  for (const candidate of candidates) {
    const at = when(candidate);
    const { service, host } = subjectOf(candidate);
    const relation = relationOf(reach, service, host);
    const scale = timeScaleOf(candidate);
    const time = round(timeWeight(start - at, scale), 3);
    if (relation === null || time === 0) continue;
    const replacedBy = candidate.kind === 'deploy' ? replacement(candidate.deploy, candidates, start) : null;
    const text = describe(candidate, { reach, relation, start, at, scale, replacedBy });
    const counter = round(
      text.counter.reduce((product, c) => product * c.weight, 1),
      3,
    );
    const factors: CauseFactor[] = [
      { name: 'time', value: time, why: text.why.time },
      { name: 'relation', value: RELATION_WEIGHT[relation], why: text.why.relation },
      { name: 'kind', value: KIND_WEIGHT[weightedKind(candidate)], why: text.why.kind },
      {
        name: 'counter',
        value: counter,
        why: text.counter.length === 0 ? 'no counter-evidence' : text.counter.map((c) => c.why).join('; '),
      },
    ];
    const score = round(
      factors.reduce((product, f) => product * f.value, 1),
      3,
    );
    if (score < MIN_SCORE) continue;
    ranked.push({
      cause: {
        kind: candidate.kind,
        title: text.title,
        score,
        factors,
        evidence: text.evidence,
        counter: text.counter.map((c) => c.why),
        ref: text.ref,
      },
      at,
      key: keyOf(candidate),
    });
  }
  ranked.sort((a, b) => b.cause.score - a.cause.score || b.at - a.at || compare(a.key, b.key));
  return ranked.slice(0, MAX_CAUSES).map((r) => r.cause);
}

/** The next deploy of the same service after `deploy`, up to the start: it replaced `deploy`. */
function replacement(deploy: DeployRow, candidates: readonly Candidate[], start: number): DeployRow | null {
  const after = (a: DeployRow, b: DeployRow) => a.ts > b.ts || (a.ts === b.ts && a.id > b.id);
  let next: DeployRow | null = null;
  for (const other of candidates) {
    if (other.kind !== 'deploy') continue;
    const d = other.deploy;
    if (
      d.service === deploy.service &&
      d.ts <= start &&
      after(d, deploy) &&
      (next === null || after(next, d))
    )
      next = d;
  }
  return next;
}

/** A stable id across kinds, for the last tie-break. */
function keyOf(candidate: Candidate): string {
  switch (candidate.kind) {
    case 'deploy':
      return `deploy:${String(candidate.deploy.id).padStart(16, '0')}`;
    case 'change':
      return `change:${String(candidate.change.id).padStart(16, '0')}`;
    case 'dependency':
      return `dependency:${candidate.service}`;
    case 'certificate':
    case 'domain':
      return `${candidate.kind}:${candidate.check}`;
    case 'container':
    case 'unit':
    case 'host':
    case 'agent':
      return `${candidate.kind}:${candidate.host}:${candidate.subject}`;
  }
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
