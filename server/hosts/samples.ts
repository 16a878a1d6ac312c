import type { SampleFrame } from '../../protocol/agent.ts';
import type { LiveConfig } from '../config/service.ts';
import type { DomainEvent } from '../events.ts';
import { int, mapper, nullable, one } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { recordImageChange } from './agent-deploys.ts';
import { alertsInForce, applyHostAlerts } from './alerting.ts';
import { applyItems, insertHostEvents } from './items.ts';
import type { Membership } from './membership.ts';
import { addHostSample, hostMetricsOf } from './rollups.ts';

/**
 * A sample dated this far ahead of the server's clock is left out: its host's clock is wrong, and
 * a sample from the future would make every later one look like one sent twice.
 */
export const MAX_AHEAD_MS = 5 * 60_000;

/** What one writer job shares across the frames it applies. */
export type JobContext = {
  tx: Tx;
  config: LiveConfig;
  /** Built once per job, when a sample first needs it. */
  membership: () => Membership;
  /** Domain events of the job, dispatched together at its end. */
  events: DomainEvent[];
};

/** Thresholds in force: the host's `[[host]]` table, else those set through the API, else the defaults. */
const latestRow = mapper({ ts: nullable(int) });

/**
 * Applies a host's samples oldest first: metrics to the rollups, containers and units to
 * `host_items` with their events and deploys, then host alerts on each. A sample not newer than
 * the newest stored one was stored already (the agent sent a batch again after an answer it did not
 * get) and is skipped, as is one from the future. `hosts.latest` becomes the newest sample.
 * Returns the number of samples skipped.
 */
export function applySamples(
  ctx: JobContext,
  host: string,
  samples: SampleFrame[],
  receivedAt: number,
): number {
  if (samples.length === 0) return 0;
  const { db } = ctx.tx;
  let newest = one(
    db,
    "SELECT json_extract(latest, '$.ts') AS ts FROM hosts WHERE name = ?",
    latestRow,
    host,
  )?.ts;
  let latest: SampleFrame | null = null;
  let skipped = 0;
  const { alerts } = alertsInForce(db, ctx.config, host);
  for (const sample of [...samples].sort((a, b) => a.ts - b.ts)) {
    if (
      (newest !== null && newest !== undefined && sample.ts <= newest) ||
      sample.ts > receivedAt + MAX_AHEAD_MS
    ) {
      skipped++;
      continue;
    }
    newest = sample.ts;
    latest = sample;
    const metrics = hostMetricsOf(sample, alerts.ignoreMounts);
    addHostSample(db, host, sample.ts, metrics);
    const membership = ctx.membership();
    const items = applyItems(db, host, sample.ts, sample.containers, sample.units, membership);
    insertHostEvents(db, host, sample.ts, items.events);
    for (const change of items.imageChanges) recordImageChange(ctx.tx, host, sample.ts, change);
    ctx.events.push(
      ...applyHostAlerts(db, {
        host,
        ts: sample.ts,
        metrics,
        containers: sample.containers,
        disks: sample.disks,
        alerts,
        membership,
      }),
    );
  }
  if (latest) statement(db, 'UPDATE hosts SET latest = ? WHERE name = ?').run(JSON.stringify(latest), host);
  return skipped;
}
