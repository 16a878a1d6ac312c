import type { LiveConfig } from '../config/service.ts';
import type { DomainEvent } from '../events.ts';
import { int, mapper, nullable, one } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { recordImageChange } from './agent-deploys.ts';
import { alertsInForce, applyHostAlerts } from './alerting.ts';
import type { ReadSample } from './decode.ts';
import { addItemSamples, applyItems, insertHostEvents } from './items.ts';
import type { Membership } from './membership.ts';
import { addHostSample, hostMetricsOf } from './rollups.ts';

/** What one writer job shares across the frames it applies. */
export type JobContext = {
  tx: Tx;
  config: LiveConfig;
  /** Built once per job, when a sample first needs it. */
  membership: () => Membership;
  /** Domain events of the job, dispatched together at its end. */
  events: DomainEvent[];
};

const latestRow = mapper({ ts: nullable(int) });

/**
 * Applies a host's samples oldest first, each at its own time: metrics to the host rollups,
 * containers' and units' CPU and memory to theirs. A sample newer than the host's `latest` also moves
 * what is "now": containers and units in `host_items` with their events and deploys, host alerts, and
 * `latest` itself, which only moves forward; an older one (the agent's clock went back, or frames of
 * an outage arrived after newer ones) adds to the charts alone.
 */
export function applySamples(ctx: JobContext, host: string, samples: ReadSample[]): void {
  if (samples.length === 0) return;
  const { db } = ctx.tx;
  let newest =
    one(db, "SELECT json_extract(latest, '$.ts') AS ts FROM hosts WHERE name = ?", latestRow, host)?.ts ??
    Number.NEGATIVE_INFINITY;
  let latest: ReadSample | null = null;
  const { alerts } = alertsInForce(db, ctx.config, host);
  for (const sample of [...samples].sort((a, b) => a.ts - b.ts)) {
    const metrics = hostMetricsOf(sample, alerts.ignoreMounts);
    addHostSample(db, host, sample.ts, metrics);
    if (sample.ts <= newest) {
      addItemSamples(db, host, sample);
      continue;
    }
    const previous = Number.isFinite(newest) ? newest : null;
    newest = sample.ts;
    latest = sample;
    const membership = ctx.membership();
    const { unreadable } = sample;
    const items = applyItems(db, host, sample.ts, sample.containers, sample.units, membership, unreadable);
    insertHostEvents(db, host, sample.ts, items.events);
    for (const change of items.imageChanges) recordImageChange(ctx.tx, host, sample.ts, change);
    ctx.events.push(
      ...applyHostAlerts(db, {
        host,
        ts: sample.ts,
        previous,
        metrics,
        containers: sample.containers,
        unreadable: unreadable.containers,
        disks: sample.disks,
        alerts,
        membership,
      }),
    );
  }
  if (latest) {
    const { unreadable: _, ...frame } = latest;
    statement(db, 'UPDATE hosts SET latest = ? WHERE name = ?').run(JSON.stringify(frame), host);
  }
}
