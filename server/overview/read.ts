import type { Overview, OverviewCheck } from '../../protocol/overview.ts';
import { groupByService, recoveryOf, worstStatus } from '../checks/detail.ts';
import type { CheckEngine, Entry } from '../checks/engine.ts';
import { uptimePercent } from '../checks/rollups.ts';
import { listServices } from '../checks/store.ts';
import { changesBetween, deploysBetween } from '../deploys/read.ts';
import { graphOf } from '../incidents/graph.ts';
import { openIncidentSummaries } from '../incidents/reads.ts';
import { planStrip, readMedians, readStrips } from './rollups.ts';

/**
 * `GET /api/v1/overview` over [from, to): statuses from the engine's memory, then one query per kind
 * of data (services, strips, latency, open incidents and their alerts, deploys, changes), so the read
 * costs the same number of queries for 10 checks as for 10,000.
 */
export function readOverview(engine: CheckEngine, span: { from: number; to: number }): Overview {
  const db = engine.deps.store.read;
  const now = engine.deps.clock.now();
  const plan = planStrip(span.from, span.to, now);
  const strips = readStrips(db, plan);
  const medians = readMedians(db, span.from, span.to, now);
  const byService = groupByService(engine);
  const emptyStrip = Array<null>(plan.slots).fill(null);

  const checkOf = (e: Entry): OverviewCheck => {
    const strip = strips.get(e.rec.id);
    return {
      id: e.rec.id,
      name: e.rec.name,
      kind: e.rec.kind,
      status: e.rec.state.status,
      recovering: recoveryOf(e),
      strip: strip?.strip ?? emptyStrip,
      uptime: strip ? uptimePercent(strip) : null,
      latency: { p50: medians.get(e.rec.id) ?? null, last: e.rec.lastLatencyMs },
    };
  };

  return {
    from: span.from,
    to: span.to,
    strip: { start: plan.start, stepMs: plan.stepMs, slots: plan.slots },
    services: listServices(db).map((s) => {
      const entries = byService.get(s.name) ?? [];
      const runs = { up: 0, down: 0, degraded: 0 };
      for (const e of entries) {
        const strip = strips.get(e.rec.id);
        runs.up += strip?.up ?? 0;
        runs.down += strip?.down ?? 0;
        runs.degraded += strip?.degraded ?? 0;
      }
      return {
        name: s.name,
        managed: s.managed,
        status: worstStatus(entries),
        uptime: uptimePercent(runs),
        checks: entries.map(checkOf),
      };
    }),
    incidents: openIncidentSummaries(db, graphOf(engine.deps.config.current().services)),
    deploys: deploysBetween(db, span.from, span.to).reverse(),
    changes: changesBetween(db, span.from, span.to).reverse(),
  };
}
