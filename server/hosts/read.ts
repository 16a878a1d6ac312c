import type { DatabaseSync } from 'node:sqlite';
import { AGENT_SILENT_AFTER_MS, type SampleFrame } from '../../protocol/agent.ts';
import type {
  AgentInfo,
  HostAlertNow,
  HostAlerts,
  HostNow,
  HostRead,
  HostSummary,
  HostsList,
} from '../../protocol/hosts.ts';
import type { CheckEngine } from '../checks/engine.ts';
import { round } from '../checks/rollups.ts';
import type { LiveConfig } from '../config/service.ts';
import { all, int, json, mapper, nullable, one, text } from '../store/rows.ts';
import { alertsOf } from './alerting.ts';
import { CLOCK_TOLERANCE_MS, type HostClocks, MAX_AHEAD_MS } from './clock-ahead.ts';
import { checkConflictsOf } from './declarations.ts';
import { itemCountsOf } from './item-counts.ts';
import { discoveredOf, itemsOf } from './item-reads.ts';
import { type Membership, membership } from './membership.ts';
import { hostMetricsOf, isIgnoredMount, readHostSeries } from './rollups.ts';
import { type AgentHello, fileHostNames, knownHosts } from './store.ts';

/**
 * The host reads of the JSON API (docs/api-hosts.md): the hosts list and one host. Every query is
 * bounded by the hosts mon knows, one host's containers and units, or a chart's steps (rollups).
 */

/** The latest sample without its containers and units (those are read from `host_items`). */
type HostSample = Omit<SampleFrame, 'containers' | 'units'>;

const hostRow = mapper({
  name: text,
  alerts: nullable(json<HostAlerts>()),
  agent: nullable(json<AgentHello>()),
  latest: nullable(json<HostSample>()),
  firstSeen: nullable(int),
  lastSeen: nullable(int),
  silentSince: nullable(int),
  clockAheadMs: nullable(int),
});
type HostRow = ReturnType<typeof hostRow.finish>;
// The latest sample is read without its container and unit lists, which can be long.
const hostColumns = `name, alerts, agent, json_remove(latest, '$.containers', '$.units') AS latest,
  first_seen, last_seen, silent_since, clock_ahead_ms`;

/**
 * The host's clock offset to show: as its agent last sent its clock, past the tolerance; for an agent
 * that sends none, how far ahead its last batch's newest frame was, past MAX_AHEAD_MS (skipped frames).
 */
function offsetShown(row: HostRow, clocks: HostClocks): number | null {
  const measured = clocks.offsetOf(row.name);
  if (measured !== null) return Math.abs(measured) > CLOCK_TOLERANCE_MS ? measured : null;
  return row.clockAheadMs !== null && row.clockAheadMs > MAX_AHEAD_MS ? row.clockAheadMs : null;
}

/** What a host read needs beside the store: the hosts' clocks, the version of the agent served. */
export type ReadContext = { clocks: HostClocks; servedVersion: string | null };

function agentOf(row: HostRow | undefined, now: number, context: ReadContext): AgentInfo | null {
  if (!row?.agent || row.lastSeen === null) return null;
  const a = row.agent;
  const clockOffsetMs = offsetShown(row, context.clocks);
  const served = context.servedVersion;
  const current = served === null ? null : a.agentVersion === served;
  return {
    version: a.agentVersion,
    current,
    ...(current === false && served !== null && { update: { version: served } }),
    protocol: a.protocol,
    capabilities: a.capabilities,
    hostname: a.hostname,
    os: a.os,
    kernel: a.kernel,
    arch: a.arch,
    cores: a.cores,
    firstSeen: row.firstSeen ?? row.lastSeen,
    lastSeen: row.lastSeen,
    connected: now - row.lastSeen < AGENT_SILENT_AFTER_MS,
    ...(clockOffsetMs !== null && { clockOffsetMs }),
  };
}

const countRow = mapper({ host: text, n: int });

/** `GET /api/v1/hosts`: every host mon knows, sorted by name. */
export function readHostsList(
  db: DatabaseSync,
  config: LiveConfig,
  now: number,
  context: ReadContext,
): HostsList {
  const rows = new Map(all(db, `SELECT ${hostColumns} FROM hosts`, hostRow).map((r) => [r.name, r]));
  const alerting = new Map(
    all(
      db,
      `SELECT host, count(*) AS n FROM host_alert_states WHERE failing_since IS NOT NULL GROUP BY host`,
      countRow,
    ).map((r) => [r.host, r.n]),
  );
  const m = membership(db, config);
  const names = [...knownHosts(db, config)].sort();
  const counts = itemCountsOf(db, m, names);
  const fromFile = fileHostNames(config);
  const hosts = names.map((name): HostSummary => {
    const row = rows.get(name);
    const latest = row?.latest
      ? hostMetricsOf(
          { ...row.latest, containers: null, units: null },
          alertsOf(config, name, row.alerts, fromFile).alerts.ignoreMounts,
        )
      : null;
    const items = counts.get(name);
    return {
      name,
      fromFile: fromFile.has(name),
      services: m.servicesOfHost(name),
      agent: agentOf(row, now, context),
      cpu: latest?.cpu ?? null,
      memory: latest?.memory ?? null,
      disk: latest?.disk ?? null,
      // A silent agent is an alert of the host's own, kept as `silent_since` (silence.ts).
      alerting: (alerting.get(name) ?? 0) + (row?.silentSince != null ? 1 : 0),
      containers: items?.containers ?? 0,
      units: items?.units ?? 0,
      discovered: items?.discovered ?? 0,
    };
  });
  return { hosts };
}

/** `GET /api/v1/hosts/{name}` over [from, to), or null for a host mon does not know. */
export function readHost(
  engine: CheckEngine,
  name: string,
  span: { from: number; to: number },
  context: ReadContext,
): HostRead | null {
  const db = engine.deps.store.read;
  const config = engine.deps.config.current();
  const now = engine.deps.clock.now();
  if (!knownHosts(db, config).has(name)) return null;
  const row = one(db, `SELECT ${hostColumns} FROM hosts WHERE name = ?`, hostRow, name);
  const { alerts, from } = alertsOf(config, name, row?.alerts ?? null);
  const m: Membership = membership(db, config);
  const items = itemsOf(db, m, name);
  return {
    name,
    fromFile: fileHostNames(config).has(name),
    services: m.servicesOfHost(name),
    agent: agentOf(row, now, context),
    alerts,
    alertsFrom: from,
    alerting: alertingOf(db, name, row?.silentSince ?? null),
    now: row?.latest ? hostNow(row.latest, alerts.ignoreMounts) : null,
    series: readHostSeries(db, name, span.from, span.to, now),
    containers: items.containers,
    units: items.units,
    discovered: discoveredOf(db, name, items),
    checks: engine
      .all()
      .filter((e) => e.def.from === name)
      .sort((a, b) => (a.rec.name < b.rec.name ? -1 : a.rec.name > b.rec.name ? 1 : 0))
      .map((e) => ({
        id: e.rec.id,
        name: e.rec.name,
        kind: e.rec.kind,
        status: e.rec.state.status,
        hostDefined: e.rec.hostDefined,
      })),
    checkConflicts: checkConflictsOf(db, config, name),
    checkProblems: problemsOf(db, name),
  };
}

const percentOf = (used: number, total: number) => (total > 0 ? round((used / total) * 100, 2) : 0);
const withPercent = (v: { used: number; total: number } | null) =>
  v === null ? null : { used: v.used, total: v.total, percent: percentOf(v.used, v.total) };

/** The latest sample as the host page shows it: percents, and which filesystems the disk alert ignores. */
function hostNow(s: HostSample, ignoreMounts: readonly string[]): HostNow {
  return {
    ts: s.ts,
    cpu: s.cpu,
    memory: withPercent(s.memory),
    swap: withPercent(s.swap),
    disks: s.disks.map((d) => ({
      ...d,
      percent: percentOf(d.used, d.size),
      ignored: isIgnoredMount(d.mount, ignoreMounts),
    })),
    diskIo: s.diskIo,
    net: s.net,
    load: s.load,
    temperatures: s.temperatures,
  };
}

const metricWords = {
  cpu: 'CPU',
  memory: 'memory',
  swap: 'swap',
  disk: 'disk',
  temperature: 'temperature',
} as const;
const isMetric = (m: string): m is keyof typeof metricWords => Object.hasOwn(metricWords, m);

/** What a host alert's key names (`host:<name>:<metric>`, `container:<host>:<name>`, `agent:<host>`). */
function subjectOf(host: string, key: string): Pick<HostAlertNow, 'metric' | 'name'> | null {
  if (key === `agent:${host}`) return { metric: 'agent', name: `${host} agent` };
  const container = `container:${host}:`;
  if (key.startsWith(container))
    return { metric: 'container', name: `${key.slice(container.length)} on ${host}` };
  const metric = key.slice(`host:${host}:`.length);
  if (key.startsWith(`host:${host}:`) && isMetric(metric)) {
    return { metric, name: `${host} ${metricWords[metric]}` };
  }
  return null;
}

const failingRow = mapper({
  key: text,
  failingSince: int,
  detail: nullable(text),
  incident: nullable(text),
});

const openIncident = (key: string) =>
  `(SELECT a.incident FROM incident_alerts a WHERE a.key = ${key} AND a.recovered_at IS NULL LIMIT 1)`;

/**
 * The host's alerts failing now, oldest first, each with the open incident that holds it: the
 * thresholds' and containers' (`host_alert_states`), and the agent's while it is silent (`silentSince`,
 * with the detail of its `silent` event).
 */
function alertingOf(db: DatabaseSync, host: string, silentSince: number | null): HostAlertNow[] {
  const silent =
    silentSince === null
      ? []
      : all(
          db,
          `SELECT 'agent:' || ?1 AS key, ?2 AS failing_since,
             (SELECT detail FROM host_events WHERE host = ?1 AND kind = 'silent' ORDER BY ts DESC LIMIT 1) AS detail,
             ${openIncident(`'agent:' || ?1`)} AS incident`,
          failingRow,
          host,
          silentSince,
        );
  const states = all(
    db,
    `SELECT s.key, s.failing_since, s.detail, ${openIncident('s.key')} AS incident
     FROM host_alert_states s WHERE s.host = ? AND s.failing_since IS NOT NULL
     ORDER BY s.failing_since, s.key`,
    failingRow,
    host,
  );
  const rows = [...silent, ...states].sort(
    (a, b) => a.failingSince - b.failingSince || a.key.localeCompare(b.key),
  );
  return rows.flatMap((r) => {
    const subject = subjectOf(host, r.key);
    if (!subject) return [];
    return [{ key: r.key, ...subject, detail: r.detail ?? '', since: r.failingSince, incident: r.incident }];
  });
}

const problemsRow = mapper({ problems: nullable(json<string[]>()) });

/** Lines of checks.toml the host's agent could not use, from its last declaration. */
function problemsOf(db: DatabaseSync, host: string): string[] {
  const row = one(
    db,
    `SELECT json_extract(declared, '$.problems') AS problems FROM hosts WHERE name = ?`,
    problemsRow,
    host,
  );
  return row?.problems ?? [];
}
