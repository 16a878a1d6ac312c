import type { DatabaseSync } from 'node:sqlite';
import { DAY } from '../../protocol/durations.ts';
import type { Beat, CheckDetail, CheckRow, ServiceRead, ServicesList, Uptime } from '../../protocol/reads.ts';
import { sitesByService } from '../analytics/sites.ts';
import { changesBetween, deploysOf } from '../deploys/read.ts';
import { graphOf } from '../incidents/graph.ts';
import { all, int, type Mapper, mapper, nullable, real, text } from '../store/rows.ts';
import type { Span } from '../windows/active.ts';
import type { CheckEngine, Entry } from './engine.ts';
import { heartbeatDeadline } from './heartbeats.ts';
import { heldService, recentMaintenance, withoutMaintenance } from './maintenance-runs.ts';
import { meanLatency, readSeries, uptimePercent } from './rollups.ts';
import { gapsBetween, uptimeSpans } from './running.ts';
import { BEATS } from './runs.ts';
import { type CheckStatus, recovery } from './state.ts';
import { listServices, runStatus } from './store.ts';

/** Read models of checks and services (docs/api-checks.md). Status comes from the engine's memory. */
export function checkRow(entry: Entry): CheckRow {
  const { rec, def } = entry;
  return {
    id: rec.id,
    name: rec.name,
    service: rec.service,
    kind: rec.kind,
    status: rec.state.status,
    since: rec.state.since,
    recovering: recoveryOf(entry),
    target: def.target,
    everyMs: def.kind === 'heartbeat' && def.cron ? null : def.everyMs,
    cron: def.cron,
    from: def.from,
    managed: rec.managed,
    hostDefined: rec.hostDefined,
    lastRunAt: rec.lastRunAt,
    lastLatencyMs: rec.lastLatencyMs,
    lastDetail: rec.lastDetail,
    lastValue: rec.lastValue,
    expiry: rec.expiry,
    heartbeat: entry.hb
      ? {
          lastPingAt: rec.lastPingAt,
          startedAt: entry.hb.startedAt,
          dueAt: heartbeatDeadline(def, entry.hb).at,
          hasPingUrl: rec.pingTokenHash !== null,
        }
      : null,
  };
}

/** Heartbeats change at once: only scheduled checks recover over several runs. */
export const recoveryOf = (e: Entry) => (e.hb ? null : recovery(e.rec.state, e.def.everyMs));

const rank: Record<CheckStatus, number> = { down: 3, degraded: 2, up: 1, unknown: 0 };

/** The worst status of the checks: down > degraded > up > unknown. */
export function worstStatus(entries: Entry[]): CheckStatus {
  let worst: CheckStatus = 'unknown';
  for (const e of entries) if (rank[e.rec.state.status] > rank[worst]) worst = e.rec.state.status;
  return worst;
}

const beat: Mapper<Beat> = mapper({ ts: int, status: runStatus, latencyMs: nullable(real), detail: text });

export function readBeats(db: DatabaseSync, checkId: string): Beat[] {
  return all(
    db,
    `SELECT ts, status, latency_ms, detail FROM check_runs WHERE check_id = ? ORDER BY ts DESC LIMIT ${BEATS}`,
    beat,
    checkId,
  ).reverse();
}

/**
 * The last 24 hours: the services list, a service and a check's detail read them alike. `held`: the
 * service's maintenance times, whose runs are left out.
 */
const dayTotals = (db: DatabaseSync, ids: string[], now: number, held: readonly Span[]) =>
  withoutMaintenance(db, ids, now - DAY, now, held);

export function uptimes(
  db: DatabaseSync,
  ids: string[],
  now: number,
  held: readonly Span[],
  day = dayTotals(db, ids, now, held),
): Uptime {
  return {
    day: uptimePercent(day),
    month: uptimePercent(withoutMaintenance(db, ids, now - 30 * DAY, now, held)),
    year: uptimePercent(withoutMaintenance(db, ids, now - 365 * DAY, now, held)),
  };
}

/** A check's detail says `uptime: null` until it has run (no window has a run). */
function withRuns(u: Uptime): Uptime | null {
  return u.day === null && u.month === null && u.year === null ? null : u;
}

export function readDetail(
  engine: CheckEngine,
  entry: Entry,
  span: { from: number; to: number },
): CheckDetail {
  const db = engine.deps.store.read;
  const now = engine.deps.clock.now();
  const id = entry.rec.id;
  const service = entry.rec.service;
  const siblings = engine.all().filter((e) => e.rec.service === service);
  const graph = graphOf(db, engine.deps.config.current().services);
  const hosts = graph.hostsOf(service);
  const held = heldService(recentMaintenance(db, now), graph, service, now).spans;
  const day = dayTotals(db, [id], now, held);
  const beats = readBeats(db, id);
  return {
    check: checkRow(entry),
    service: { name: entry.rec.service, status: worstStatus(siblings) },
    beats,
    uptime: withRuns(uptimes(db, [id], now, held, day)),
    uptimeSpan: uptimeSpans(db, entry.rec.createdAt, now, held),
    gaps: beats.length ? gapsBetween(db, beats[0]!.ts, now) : [],
    dayAverageMs: meanLatency(day),
    series: readSeries(db, id, span.from, span.to, now),
    expiry: entry.rec.expiry,
    deploys: deploysOf(db, service, span.from, span.to),
    changes: changesBetween(db, span.from, span.to).filter(
      (c) =>
        c.service === service ||
        (c.host !== null && hosts.includes(c.host)) ||
        (c.service === null && c.host === null),
    ),
  };
}

/** `GET /api/v1/services`: every service with its status, day uptime and checks. */
export function readServices(engine: CheckEngine): ServicesList {
  const db = engine.deps.store.read;
  const now = engine.deps.clock.now();
  const byService = groupByService(engine);
  const windows = recentMaintenance(db, now);
  const services = engine.deps.config.current().services;
  const graph = graphOf(db, services);
  const sites = sitesByService(db, services);
  return {
    services: listServices(db).map((s) => {
      const entries = byService.get(s.name) ?? [];
      const held = heldService(windows, graph, s.name, now).spans;
      return {
        name: s.name,
        managed: s.managed,
        status: worstStatus(entries),
        hosts: graph.hostsOf(s.name),
        sites: sites.get(s.name) ?? [],
        uptime: {
          day: uptimePercent(
            dayTotals(
              db,
              entries.map((e) => e.rec.id),
              now,
              held,
            ),
          ),
        },
        checks: entries.map((e) => ({
          id: e.rec.id,
          name: e.rec.name,
          kind: e.rec.kind,
          status: e.rec.state.status,
          recovering: recoveryOf(e),
        })),
      };
    }),
  };
}

/** `GET /api/v1/services/{name}`, or null for an unknown service. */
export function readService(engine: CheckEngine, name: string): ServiceRead | null {
  const db = engine.deps.store.read;
  const service = listServices(db).find((s) => s.name === name);
  if (!service) return null;
  const entries = groupByService(engine).get(name) ?? [];
  const now = engine.deps.clock.now();
  const services = engine.deps.config.current().services;
  const graph = graphOf(db, services);
  const held = heldService(recentMaintenance(db, now), graph, name, now);
  return {
    name,
    managed: service.managed,
    status: worstStatus(entries),
    hosts: graph.hostsOf(name),
    maintenance: held.now,
    sites: sitesByService(db, services).get(name) ?? [],
    uptime: uptimes(
      db,
      entries.map((e) => e.rec.id),
      now,
      held.spans,
    ),
    uptimeSpan: uptimeSpans(db, Math.min(now, ...entries.map((e) => e.rec.createdAt)), now, held.spans),
    checks: entries.map(checkRow),
  };
}

/** The engine's checks by service, each list sorted by name. */
export function groupByService(engine: CheckEngine): Map<string, Entry[]> {
  const out = new Map<string, Entry[]>();
  const byName = engine
    .all()
    .sort((a, b) => (a.rec.name < b.rec.name ? -1 : a.rec.name > b.rec.name ? 1 : 0));
  for (const e of byName) {
    const list = out.get(e.rec.service) ?? [];
    list.push(e);
    out.set(e.rec.service, list);
  }
  return out;
}
