import type { DatabaseSync } from 'node:sqlite';
import type { ContainerSample, DiskSample } from '../../protocol/agent.ts';
import type { HostAlerts } from '../../protocol/hosts.ts';
import type { LiveConfig } from '../config/service.ts';
import type { HostAlert } from '../events.ts';
import { all, int, json, type Mapped, mapper, nullable, real, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { defaultHostAlerts } from './config.ts';
import { type ContainerState, judgeContainer, judgeGone } from './container-alerts.ts';
import type { Membership } from './membership.ts';
import { fullestDisk, type HostMetrics } from './rollups.ts';
import { fileHostNames, getHost } from './store.ts';
import {
  idleThreshold,
  judgeThreshold,
  THRESHOLD_METRICS,
  type ThresholdMetric,
  type ThresholdState,
  thresholdLabel,
} from './thresholds.ts';

/** One sample of a host as host alerts judge it. */
export type HostAlertInput = {
  host: string;
  ts: number;
  /** The time of the host's sample judged before this one (null: none): a gap ends spells above limits. */
  previous: number | null;
  metrics: HostMetrics;
  /** The sample's filesystems: the disk alert names the fullest one not ignored. */
  disks: readonly DiskSample[];
  /** null: the sample had no container runtime. */
  containers: ContainerSample[] | null;
  /**
   * Containers the sample listed that the server could not read (a newer agent's state or health):
   * there, but not judged; their alerts stay as they are.
   */
  unreadable?: readonly string[];
  alerts: HostAlerts;
  membership: Membership;
};

/**
 * The thresholds in force for a host, and where they come from. A host named in mon.toml (a `[[host]]`
 * table or a `[[service]]`'s `hosts`) takes them from the file: its `[[host]]` table (`file`), else
 * the defaults, since the API may not change them (409). Those set through the API (`api`) hold only
 * for hosts the file does not name; they stay stored, and hold again if the file stops naming the host.
 */
export function alertsInForce(
  db: DatabaseSync,
  config: LiveConfig,
  host: string,
): { alerts: HostAlerts; from: 'file' | 'api' | 'default' } {
  return alertsOf(config, host, getHost(db, host)?.alerts ?? null);
}

/**
 * The same rule, given the thresholds stored through the API (`hosts.alerts`) already read; a caller
 * going through many hosts passes `fileHostNames(config)` once.
 */
export function alertsOf(
  config: LiveConfig,
  host: string,
  stored: HostAlerts | null,
  fileHosts: ReadonlySet<string> = fileHostNames(config),
): { alerts: HostAlerts; from: 'file' | 'api' | 'default' } {
  const table = config.hosts.find((h) => h.name === host);
  if (table) return { alerts: table.alerts, from: 'file' };
  if (stored && !fileHosts.has(host)) return { alerts: stored, from: 'api' };
  return { alerts: defaultHostAlerts, from: 'default' };
}

/**
 * Judges one sample against the host's thresholds and its containers' health, inside the writer job
 * that stores it: updates `host_alert_states`, records threshold crossings in `host_events`, and
 * returns the alerts that started failing or recovered, for the caller to dispatch. Samples of a host
 * must come in time order. A row is written only when what it keeps changes, so a host whose values
 * stay under their limits and whose containers run steadily costs one read per sample.
 */
export function applyHostAlerts(db: DatabaseSync, input: HostAlertInput): HostAlert[] {
  const rows = new Map(all(db, stateSql, stateRow, input.host).map((r) => [r.key, r]));
  return [...thresholdAlerts(db, input, rows), ...containerAlerts(db, input, rows)];
}

/** What a container's alert keeps beside the shared columns (`container`, JSON). */
type ContainerKept = {
  id: string;
  service: string;
  restartTimes: number[];
  startedAt: number | null;
  imageId: string;
  goneSince: number | null;
};

const stateRow = mapper({
  key: text,
  aboveSince: nullable(int),
  failingSince: nullable(int),
  value: nullable(real),
  detail: nullable(text),
  absent: int,
  container: nullable(json<ContainerKept>()),
});
type StateRow = Mapped<typeof stateRow>;
/** What a row keeps, without its key. */
type Kept = Omit<StateRow, 'key'>;
const keptOf = ({ key: _, ...kept }: StateRow): Kept => kept;
const stateSql =
  'SELECT key, above_since, failing_since, value, detail, absent, container FROM host_alert_states WHERE host = ?';

function writeState(db: DatabaseSync, host: string, key: string, s: Kept | null): void {
  if (s === null) {
    statement(db, 'DELETE FROM host_alert_states WHERE host = ? AND key = ?').run(host, key);
    return;
  }
  statement(
    db,
    `INSERT INTO host_alert_states (host, key, above_since, failing_since, value, detail, absent, container)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(host, key) DO UPDATE SET above_since = excluded.above_since,
       failing_since = excluded.failing_since, value = excluded.value, detail = excluded.detail,
       absent = excluded.absent, container = excluded.container`,
  ).run(
    host,
    key,
    s.aboveSince,
    s.failingSince,
    s.value,
    s.detail,
    s.absent,
    s.container === null ? null : JSON.stringify(s.container),
  );
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function thresholdAlerts(db: DatabaseSync, input: HostAlertInput, rows: Map<string, StateRow>): HostAlert[] {
  const { host, ts, previous, alerts } = input;
  const out: HostAlert[] = [];
  for (const metric of THRESHOLD_METRICS) {
    const key = `host:${host}:${metric}`;
    const row = rows.get(key);
    const state: ThresholdState = row
      ? {
          aboveSince: row.aboveSince,
          failingSince: row.failingSince,
          value: row.value,
          detail: row.detail,
          absent: row.absent,
        }
      : idleThreshold;
    const reading = readingOf(input, metric);
    const judged = judgeThreshold(metric, state, reading, alerts[metric], ts, previous);
    if (!sameJson(judged.state, state)) {
      const idle = sameJson(judged.state, idleThreshold);
      writeState(db, host, key, idle ? null : { ...judged.state, container: null });
    }
    const t = judged.transition;
    if (!t) continue;
    const event = {
      type: 'host.alert' as const,
      host,
      key,
      metric,
      name: `${host} ${thresholdLabel(metric)}`,
      service: null,
      ts,
    };
    if (t.to === 'failing') {
      // The crossing is evidence for incidents from when the value went over the limit.
      statement(
        db,
        `INSERT INTO host_events (host, ts, kind, subject, service, detail) VALUES (?, ?, 'threshold', ?, NULL, ?)`,
      ).run(host, t.since, metric, t.detail);
      out.push({ ...event, state: 'failing', detail: t.detail, summary: t.summary });
    } else {
      out.push({ ...event, state: 'recovered', detail: t.detail });
    }
  }
  return out;
}

function readingOf(input: HostAlertInput, metric: ThresholdMetric) {
  if (metric !== 'disk') return { value: input.metrics[metric], mount: null };
  const fullest = fullestDisk(input.disks, input.alerts.ignoreMounts);
  return { value: fullest?.percent ?? null, mount: fullest?.mount ?? null };
}

function containerAlerts(db: DatabaseSync, input: HostAlertInput, rows: Map<string, StateRow>): HostAlert[] {
  const { host, ts, previous, containers, membership, unreadable = [] } = input;
  // Without a runtime answering nothing is known of the containers: their states stay as they are.
  if (containers === null) return [];
  const prefix = `container:${host}:`;
  const out: HostAlert[] = [];
  const seen = new Set<string>();
  const alertOf = (name: string, service: string) => ({
    type: 'host.alert' as const,
    host,
    key: `${prefix}${name}`,
    metric: 'container' as const,
    name: `${name} on ${host}`,
    service,
    ts,
  });
  for (const c of containers) {
    const key = `${prefix}${c.name}`;
    const service = membership.serviceOf(host, 'container', c.name, c.labels);
    // Only containers of a service raise alerts; one that left its service is judged no more.
    if (service === null) continue;
    seen.add(key);
    const row = rows.get(key);
    const state = row ? containerStateOf(row) : null;
    const judged = judgeContainer(state, c, ts, previous);
    const kept = containerColumns(judged.state, service);
    if (!row || !sameJson(kept, keptOf(row))) writeState(db, host, key, kept);
    const t = judged.transition;
    if (t?.to === 'failing')
      out.push({ ...alertOf(c.name, service), state: 'failing', detail: t.detail, summary: t.summary });
    else if (t) out.push({ ...alertOf(c.name, service), state: 'recovered', detail: t.detail });
  }
  // Containers of a service missing from this sample: gone (kept a while, see judgeGone), or still
  // there but no longer part of a service (forgotten at once). One listed unreadably is neither.
  const listed = new Set(containers.map((c) => c.name));
  const present = new Set(unreadable);
  for (const [key, row] of rows) {
    if (!key.startsWith(prefix) || seen.has(key)) continue;
    const name = key.slice(prefix.length);
    if (present.has(name)) continue;
    const state = containerStateOf(row);
    const service = row.container?.service ?? null;
    if (state === null || service === null || listed.has(name)) {
      writeState(db, host, key, null);
      if (row.failingSince !== null && service !== null)
        out.push({ ...alertOf(name, service), state: 'recovered', detail: 'no longer part of a service' });
      continue;
    }
    const judged = judgeGone(state, ts);
    if (judged.state === null) writeState(db, host, key, null);
    else if (judged.state.goneSince !== state.goneSince)
      writeState(db, host, key, containerColumns(judged.state, service));
    if (judged.transition)
      out.push({ ...alertOf(name, service), state: 'recovered', detail: judged.transition.detail });
  }
  return out;
}

function containerStateOf(row: StateRow): ContainerState | null {
  if (row.container === null) return null;
  return {
    id: row.container.id,
    restarts: row.value ?? 0,
    startedAt: row.container.startedAt,
    imageId: row.container.imageId,
    goneSince: row.container.goneSince,
    restartTimes: row.container.restartTimes,
    unhealthySince: row.aboveSince,
    failingSince: row.failingSince,
    detail: row.detail,
  };
}

/** A container's state in the columns of `host_alert_states`. */
function containerColumns(s: ContainerState, service: string): Kept {
  return {
    aboveSince: s.unhealthySince,
    failingSince: s.failingSince,
    value: s.restarts,
    detail: s.detail,
    absent: 0,
    container: {
      id: s.id,
      service,
      restartTimes: s.restartTimes,
      startedAt: s.startedAt,
      imageId: s.imageId,
      goneSince: s.goneSince,
    },
  };
}
