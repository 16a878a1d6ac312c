import type { DatabaseSync } from 'node:sqlite';
import type { Overview, OverviewCheck } from '../../protocol/overview.ts';
import type { MaintenanceNow } from '../../protocol/reads.ts';
import { groupByService, recoveryOf, worstStatus } from '../checks/detail.ts';
import type { CheckEngine, Entry } from '../checks/engine.ts';
import { leaveOut, type RunCounts, runsInside } from '../checks/maintenance-runs.ts';
import { uptimePercent } from '../checks/rollups.ts';
import { listServices } from '../checks/store.ts';
import { changesBetween, deploysBetween } from '../deploys/read.ts';
import { graphOf } from '../incidents/graph.ts';
import { openIncidentSummaries } from '../incidents/reads.ts';
import { maintenanceAt, maintenanceBetween, maintenanceSpans, type Span } from '../windows/active.ts';
import { planStrip, readMedians, readStrips, type StripPlan } from './rollups.ts';

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
  const held = maintenanceOfServices(db, engine, plan, now);

  const checkOf = (e: Entry): OverviewCheck => {
    const strip = strips.get(e.rec.id);
    return {
      id: e.rec.id,
      name: e.rec.name,
      kind: e.rec.kind,
      status: e.rec.state.status,
      recovering: recoveryOf(e),
      strip: strip?.strip ?? emptyStrip,
      uptime: strip ? uptimePercent(leaveOut(strip, held.runs.get(e.rec.id))) : null,
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
        const inside = held.runs.get(e.rec.id);
        runs.up += (strip?.up ?? 0) - (inside?.up ?? 0);
        runs.down += (strip?.down ?? 0) - (inside?.down ?? 0);
        runs.degraded += (strip?.degraded ?? 0) - (inside?.degraded ?? 0);
      }
      return {
        name: s.name,
        managed: s.managed,
        status: worstStatus(entries),
        maintenance: held.now.get(s.name) ?? null,
        uptime: uptimePercent(runs),
        checks: entries.map(checkOf),
      };
    }),
    incidents: openIncidentSummaries(db, graphOf(db, engine.deps.config.current().services)),
    deploys: deploysBetween(db, span.from, span.to).reverse(),
    changes: changesBetween(db, span.from, span.to).reverse(),
  };
}

/**
 * Each service's maintenance now, and the runs of the strips' slots inside its maintenance windows (which
 * uptime leaves out), by check. Services held by the same times are counted together, so a window of
 * everything costs the same few queries as one of a single service.
 */
function maintenanceOfServices(
  db: DatabaseSync,
  engine: CheckEngine,
  plan: StripPlan,
  now: number,
): { now: Map<string, MaintenanceNow>; runs: Map<string, RunCounts> } {
  const end = plan.start + plan.slots * plan.stepMs;
  const windows = maintenanceBetween(db, Math.min(plan.start, now), Math.max(end, now + 1));
  const out = { now: new Map<string, MaintenanceNow>(), runs: new Map<string, RunCounts>() };
  if (windows.length === 0) return out;
  const graph = graphOf(db, engine.deps.config.current().services);
  const groups = new Map<string, { spans: Span[]; ids: string[] }>();
  for (const [name, entries] of groupByService(engine)) {
    const scope = { services: [name], hosts: graph.hostsOf(name) };
    const at = maintenanceAt(windows, scope, now);
    if (at) out.now.set(name, at);
    const spans = maintenanceSpans(windows, scope, plan.start, Math.min(end, now));
    if (spans.length === 0) continue;
    const key = JSON.stringify(spans);
    const group = groups.get(key) ?? { spans, ids: [] };
    group.ids.push(...entries.map((e) => e.rec.id));
    groups.set(key, group);
  }
  for (const { spans, ids } of groups.values()) {
    for (const [id, counts] of runsInside(db, ids, spans, now)) out.runs.set(id, counts);
  }
  return out;
}
