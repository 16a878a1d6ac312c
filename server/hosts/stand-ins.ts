import type { DatabaseSync } from 'node:sqlite';
import type { FastifyInstance } from 'fastify';
import { AGENT_SILENT_AFTER_MS, type SampleFrame } from '../../protocol/agent.ts';
import {
  type AddedHost,
  addHostSchema,
  type ContainerRow,
  type DiscoveredItem,
  dismissSchema,
  type HostAlertNow,
  type HostAlerts,
  type HostNow,
  type HostRead,
  type HostsList,
  hostAlertsSchema,
  type IncidentHost,
  type ItemSeries,
  type UnitRow,
} from '../../protocol/hosts.ts';
import { nameSchema } from '../../protocol/text.ts';
import { publicBase } from '../auth/oidc.ts';
import { parseRange } from '../checks/detail.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { LiveConfig } from '../config/service.ts';
import type { Deps } from '../deps.ts';
import { conflict, invalid, notFound } from '../problem.ts';
import { all, int, json, mapper, nullable, one, real, scalar, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { defaultHostAlerts } from './config.ts';
import { checkConflictsOf } from './declarations.ts';
import { installCommands } from './install.ts';
import { membership } from './membership.ts';
import { hostMetricsOf, isIgnoredMount, readHostSeries, readItemSeries } from './rollups.ts';
import { fileHostNames, getHost, knownHosts, newHostToken, putHostToken } from './store.ts';

/** Stand-ins for the host routes, as protocol/hosts.ts describes them, so that the panel can be built against them. */

type Query = Record<string, string | undefined>;

const itemRow = mapper({
  id: text,
  kind: text,
  name: text,
  state: text,
  subState: nullable(text),
  health: nullable(text),
  restarts: int,
  exitCode: nullable(int),
  image: nullable(text),
  startedAt: nullable(int),
  labels: nullable(json<Record<string, string>>()),
  cpu: nullable(real),
  memory: nullable(real),
  firstSeen: int,
  updatedAt: int,
});
const itemsOf = (db: DatabaseSync, host: string) =>
  all(
    db,
    `SELECT id, kind, name, state, sub_state, health, restarts, exit_code, image, started_at, labels, cpu, memory,
       first_seen, updated_at FROM host_items WHERE host = ? AND gone_at IS NULL ORDER BY name`,
    itemRow,
    host,
  );
const dismissed = (db: DatabaseSync) =>
  new Set(all(db, 'SELECT id FROM discovered_dismissed', mapper({ id: text })).map((r) => r.id));

function alertsInForce(db: DatabaseSync, config: LiveConfig, host: string) {
  const file = config.hosts.find((h) => h.name === host);
  if (file) return { alerts: file.alerts, from: 'file' as const };
  const stored = getHost(db, host)?.alerts;
  return stored
    ? { alerts: stored, from: 'api' as const }
    : { alerts: defaultHostAlerts, from: 'default' as const };
}

const latestOf = (db: DatabaseSync, host: string) =>
  one(
    db,
    'SELECT latest, declared FROM hosts WHERE name = ?',
    mapper({
      latest: nullable(json<SampleFrame>()),
      declared: nullable(json<{ problems?: string[] }>()),
    }),
    host,
  );

const percent = (used: number, total: number) => (total > 0 ? Math.round((used / total) * 10_000) / 100 : 0);

function nowOf(sample: SampleFrame, alerts: HostAlerts): HostNow {
  const part = (p: { used: number; total: number } | null) =>
    p ? { used: p.used, total: p.total, percent: percent(p.used, p.total) } : null;
  return {
    ts: sample.ts,
    cpu: sample.cpu,
    memory: part(sample.memory),
    swap: part(sample.swap),
    disks: sample.disks.map((d) => ({
      ...d,
      percent: percent(d.used, d.size),
      ignored: isIgnoredMount(d.mount, alerts.ignoreMounts),
    })),
    diskIo: sample.diskIo,
    net: sample.net,
    load: sample.load,
    temperatures: sample.temperatures,
  };
}

const alertingRow = mapper({ key: text, failingSince: int, detail: nullable(text) });

function alertingOf(db: DatabaseSync, host: string): HostAlertNow[] {
  return all(
    db,
    'SELECT key, failing_since, detail FROM host_alert_states WHERE host = ? AND failing_since IS NOT NULL ORDER BY key',
    alertingRow,
    host,
  ).map((a) => {
    const parts = a.key.split(':');
    const metric = (parts[0] === 'host' ? parts[2] : parts[0]) as HostAlertNow['metric'];
    const incident =
      one(
        db,
        'SELECT incident FROM incident_alerts WHERE key = ? AND recovered_at IS NULL',
        mapper({ incident: text }),
        a.key,
      )?.incident ?? null;
    return {
      key: a.key,
      metric,
      name: parts.at(-1)!,
      detail: a.detail ?? '',
      since: a.failingSince,
      incident,
    };
  });
}

export function registerStandInRoutes(app: FastifyInstance, deps: Deps, engine: CheckEngine): void {
  const db = () => deps.store.read;
  const known = (name: string) => {
    if (!knownHosts(db(), deps.config.current()).has(name)) throw notFound(`no host ${name}`);
  };

  app.post('/api/v1/hosts', async (request, reply) => {
    const { name } = addHostSchema.parse(request.body);
    const { token, hash } = newHostToken();
    const existed = await deps.store.writer.run((w) => putHostToken(w, name, hash, deps.clock.now()));
    const base = publicBase(deps, request);
    const answer: AddedHost = {
      name,
      token,
      agentUrl: `${base}/agent/v1/agent.mjs`,
      install: installCommands({ serverUrl: base, token, hostName: name }),
      replaced: existed,
    };
    return reply.code(existed ? 200 : 201).send(answer);
  });

  app.get('/api/v1/hosts', async (): Promise<HostsList> => {
    const config = deps.config.current();
    const m = membership(db(), config);
    const files = fileHostNames(config);
    const gone = dismissed(db());
    return {
      hosts: [...knownHosts(db(), config)].sort().map((name) => {
        const read = hostRead(db(), deps, engine, m, name, {
          from: deps.clock.now() - 60_000,
          to: deps.clock.now(),
        });
        const latest = latestOf(db(), name)?.latest ?? null;
        const metrics = latest ? hostMetricsOf(latest, read.alerts.ignoreMounts) : null;
        const items = itemsOf(db(), name);
        return {
          name,
          fromFile: files.has(name),
          services: read.services,
          agent: read.agent,
          cpu: metrics?.cpu ?? null,
          memory: metrics?.memory ?? null,
          disk: metrics?.disk ?? null,
          alerting: read.alerting.length,
          containers: items.filter((i) => i.kind === 'container').length,
          units: items.filter((i) => i.kind === 'unit').length,
          discovered: read.discovered.filter((d) => !gone.has(d.id)).length,
        };
      }),
    };
  });

  app.get<{ Params: { name: string }; Querystring: Query }>('/api/v1/hosts/:name', async (request) => {
    known(request.params.name);
    const span = parseRange(request.query, deps.clock.now());
    return hostRead(db(), deps, engine, membership(db(), deps.config.current()), request.params.name, span);
  });

  app.put<{ Params: { name: string } }>('/api/v1/hosts/:name/alerts', async (request, reply) => {
    const { name } = request.params;
    known(name);
    if (fileHostNames(deps.config.current()).has(name))
      throw conflict(`${name} is defined in mon.toml: set its thresholds in its [[host]] table`);
    const body = hostAlertsSchema.parse(request.body);
    await deps.store.writer.run((w) =>
      statement(
        w,
        `INSERT INTO hosts (name, created_at, alerts) VALUES (?, ?, ?)
         ON CONFLICT(name) DO UPDATE SET alerts = excluded.alerts`,
      ).run(name, deps.clock.now(), JSON.stringify(body)),
    );
    return reply.code(204).send();
  });

  for (const kind of ['container', 'unit'] as const) {
    app.get<{ Params: { name: string; item: string }; Querystring: Query }>(
      `/api/v1/hosts/:name/${kind}s/:item`,
      async (request): Promise<ItemSeries> => {
        const { name, item } = request.params;
        known(name);
        const had = scalar(
          db(),
          'SELECT count(*) FROM host_items WHERE host = ? AND kind = ? AND name = ?',
          int,
          name,
          kind,
          item,
        );
        if (!had) throw notFound(`${name} has no ${kind} ${item}`);
        const span = parseRange(request.query, deps.clock.now());
        return readItemSeries(db(), name, kind, item, span.from, span.to, deps.clock.now());
      },
    );
  }

  app.post('/api/v1/discovered/dismiss', async (request, reply) => {
    const { ids } = dismissSchema.parse(request.body);
    await deps.store.writer.run((w) => {
      const put = statement(w, 'INSERT OR IGNORE INTO discovered_dismissed (id, dismissed_at) VALUES (?, ?)');
      for (const id of ids) put.run(id, deps.clock.now());
    });
    return reply.code(204).send();
  });

  app.post('/api/v1/discovered/monitor', async (request, reply) => {
    const body = (request.body ?? {}) as { host?: unknown; service?: unknown; check?: unknown };
    const host = nameSchema.safeParse(body.host);
    if (!host.success || !knownHosts(db(), deps.config.current()).has(host.data))
      throw invalid('host', 'must name a known host');
    const service = nameSchema.safeParse(body.service);
    if (!service.success) throw invalid('service', service.error.issues[0]?.message ?? 'must be a name');
    if (body.check !== null) throw invalid('check', 'must be null');
    if (deps.config.current().services.some((s) => s.name === service.data))
      throw conflict(`the service ${service.data} is defined in mon.toml`);
    await deps.store.writer.run((w) => {
      statement(w, 'INSERT OR IGNORE INTO services (name, created_at) VALUES (?, ?)').run(
        service.data,
        deps.clock.now(),
      );
      statement(w, 'INSERT OR IGNORE INTO service_hosts (service, host) VALUES (?, ?)').run(
        service.data,
        host.data,
      );
    });
    return reply.code(201).send({ service: service.data, check: null });
  });
}

function hostRead(
  db: DatabaseSync,
  deps: Deps,
  engine: CheckEngine,
  m: ReturnType<typeof membership>,
  name: string,
  span: { from: number; to: number },
): HostRead {
  const config = deps.config.current();
  const now = deps.clock.now();
  const record = getHost(db, name);
  const { alerts, from } = alertsInForce(db, config, name);
  const latest = latestOf(db, name);
  const items = itemsOf(db, name);
  const gone = dismissed(db);
  const serviceOf = (i: (typeof items)[number]) =>
    m.serviceOf(name, i.kind as 'container' | 'unit', i.name, i.labels ?? {});
  const containers: ContainerRow[] = items
    .filter((i) => i.kind === 'container')
    .map((i) => ({
      name: i.name,
      image: i.image ?? '',
      state: i.state,
      health: i.health as ContainerRow['health'],
      restarts: i.restarts,
      exitCode: i.exitCode,
      startedAt: i.startedAt,
      cpu: i.cpu,
      memory: i.memory,
      service: serviceOf(i),
      updatedAt: i.updatedAt,
    }));
  const units: UnitRow[] = items
    .filter((i) => i.kind === 'unit')
    .map((i) => ({
      name: i.name,
      state: i.state,
      subState: i.subState ?? '',
      restarts: i.restarts,
      cpu: i.cpu,
      memory: i.memory,
      service: serviceOf(i),
      updatedAt: i.updatedAt,
    }));
  const discovered: DiscoveredItem[] = items
    .filter((i) => serviceOf(i) === null && !gone.has(i.id))
    .map((i) => ({
      id: i.id,
      host: name,
      kind: i.kind as 'container' | 'unit',
      name: i.name,
      image: i.image,
      state: i.state,
      firstSeen: i.firstSeen,
    }));
  return {
    name,
    fromFile: fileHostNames(config).has(name),
    services: m.servicesOfHost(name),
    agent:
      record?.agent && record.firstSeen !== null && record.lastSeen !== null
        ? {
            version: record.agent.agentVersion,
            protocol: record.agent.protocol,
            capabilities: record.agent.capabilities,
            hostname: record.agent.hostname,
            os: record.agent.os,
            kernel: record.agent.kernel,
            arch: record.agent.arch,
            cores: record.agent.cores,
            firstSeen: record.firstSeen,
            lastSeen: record.lastSeen,
            connected: now - record.lastSeen < AGENT_SILENT_AFTER_MS,
          }
        : null,
    alerts,
    alertsFrom: from,
    alerting: alertingOf(db, name),
    now: latest?.latest ? nowOf(latest.latest, alerts) : null,
    series: readHostSeries(db, name, span.from, span.to, now),
    containers,
    units,
    discovered,
    checks: engine
      .all()
      .filter((e) => 'from' in e.rec.body && e.rec.body.from === name)
      .map((e) => ({
        id: e.rec.id,
        name: e.rec.name,
        kind: e.rec.kind,
        status: e.rec.state.status,
        hostDefined: e.rec.hostDefined,
      })),
    checkConflicts: checkConflictsOf(db, config, name),
    checkProblems: latest?.declared?.problems ?? [],
  };
}

/** The incident read's hosts: CPU and memory around the start, the largest items, the agent's log lines. */
export function incidentHosts(
  db: DatabaseSync,
  hosts: string[],
  start: number,
  end: number,
  now: number,
): IncidentHost[] {
  const from = start - 30 * 60_000;
  const to = Math.min(end, start + 30 * 60_000, now) + 1;
  return hosts.slice(0, 5).map((name) => {
    const series = readHostSeries(db, name, from, to, now);
    const largest = (kind: 'container' | 'unit') =>
      all(
        db,
        `SELECT name FROM item_rollups WHERE host = ? AND kind = ? AND res = 'm' AND bucket >= ? AND bucket < ?
          GROUP BY name ORDER BY max(mem_max) DESC, max(cpu_max) DESC LIMIT 5`,
        mapper({ name: text }),
        name,
        kind,
        from,
        to,
      ).map((i) => ({ name: i.name, ...readItemSeries(db, name, kind, i.name, from, to, now) }));
    return {
      name,
      x: series.x,
      stepMs: series.stepMs,
      cpu: series.cpu,
      memory: series.memory,
      containers: largest('container'),
      units: largest('unit'),
      logs: all(
        db,
        'SELECT ts, level, text FROM agent_logs WHERE host = ? AND ts >= ? AND ts <= ? ORDER BY ts LIMIT 100',
        mapper({ ts: int, level: text, text: text }),
        name,
        start - 15 * 60_000,
        start + 5 * 60_000,
      ),
    };
  });
}
