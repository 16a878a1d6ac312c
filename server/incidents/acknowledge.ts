import type { Principal } from '../auth/access.ts';
import type { Deps } from '../deps.ts';
import { conflict, notFound } from '../problem.ts';
import type { IncidentContext } from './lifecycle.ts';
import { type IncidentJob, record, row } from './record.ts';
import { getIncident, setAcknowledged } from './store.ts';

/** Who acknowledged: an account's email, or an API token's label. */
export function principalName(principal: Principal): string {
  return principal.kind === 'user' ? principal.user.email : principal.label;
}

/**
 * Acknowledges an open incident: it stays open, says who and when, and reminders stop (notifications
 * read `acknowledged_at`). Acknowledging again changes nothing; a resolved incident cannot be (409).
 */
export async function acknowledge(deps: Deps, ctx: IncidentContext, id: string, by: string): Promise<void> {
  const now = deps.clock.now();
  await deps.store.writer.run((db, tx) => {
    const incident = getIncident(db, id);
    if (!incident) throw notFound(`no incident ${id}`);
    if (incident.resolvedAt !== null) throw conflict('this incident is resolved');
    if (incident.acknowledgedAt !== null) return;
    setAcknowledged(db, id, now, by);
    const job: IncidentJob = { db, tx, graph: ctx.graph(db), changes: [] };
    const acknowledged = { ...incident, acknowledgedAt: now, acknowledgedBy: by };
    record(job, acknowledged, 'acknowledged', now, null, {
      ...row(now, 'acknowledged', `acknowledged by ${by}`, null),
      by,
    });
    deps.events.dispatch(tx, job.changes, now);
  });
}
