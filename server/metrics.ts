import { statSync } from 'node:fs';
import { Counter, Gauge, Registry } from 'prom-client';
import { storedCheckKinds } from '../protocol/check.ts';
import { runStatuses } from '../protocol/reads.ts';
import { housekeepingJobs } from './housekeeping.ts';
import { type CheckSample, checkSeriesText } from './metrics-checks.ts';

export const ingestEndpoints = ['tracker', 'ping', 'deploy', 'change', 'agent'] as const;
export const rejectReasons = [
  'invalid',
  'unknown_site',
  'bot',
  'extension',
  'rate_limited',
  'queue_full',
] as const;

/**
 * Every metric SPEC.md names, on a registry of the app's own (no process-global state), and the
 * per-check series (metrics-checks.ts). `text()` is the scrape.
 */
export function createMetrics() {
  const registry = new Registry();
  let checks: () => readonly CheckSample[] = () => [];
  let database: string | null = null;
  const metrics = {
    registry,
    checkRuns: new Counter({
      name: 'mon_check_runs_total',
      help: 'Check runs completed, by the server or reported by agents.',
      labelNames: ['kind', 'status'] as const,
      registers: [registry],
    }),
    ingestAccepted: new Counter({
      name: 'mon_ingest_accepted_total',
      help: 'Inbound events stored, by endpoint.',
      labelNames: ['endpoint'] as const,
      registers: [registry],
    }),
    ingestRejected: new Counter({
      name: 'mon_ingest_rejected_total',
      help: 'Inbound events refused, by reason.',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    agentUnknownFrames: new Counter({
      name: 'mon_agent_unknown_frames_total',
      help: 'Agent frames of a kind this server does not know, and containers and units of samples in a state or health it does not know.',
      registers: [registry],
    }),
    writerCommits: new Counter({
      name: 'mon_writer_commits_total',
      help: 'Transactions committed by the single writer.',
      registers: [registry],
    }),
    agentsConnected: new Gauge({
      name: 'mon_agents_connected',
      help: 'Agents that reported within their expected interval.',
      registers: [registry],
    }),
    outboxDue: new Gauge({
      name: 'mon_outbox_due',
      help: 'Notifications due for delivery and not yet delivered.',
      registers: [registry],
    }),
    engineUp: new Gauge({
      name: 'mon_engine_up',
      help: '1 while the named engine is running, 0 otherwise.',
      labelNames: ['engine'] as const,
      registers: [registry],
    }),
    dbBytes: new Gauge({
      name: 'mon_db_bytes',
      help: 'Size of the database file (db) and of its write-ahead log (wal), at the scrape.',
      labelNames: ['file'] as const,
      registers: [registry],
      collect() {
        if (database === null) return;
        this.set({ file: 'db' }, sizeOf(database));
        this.set({ file: 'wal' }, sizeOf(`${database}-wal`));
      },
    }),
    housekeepingDuration: new Gauge({
      name: 'mon_housekeeping_duration_seconds',
      help: "How long the job's last housekeeping pass took.",
      labelNames: ['job'] as const,
      registers: [registry],
    }),
    housekeepingLastSuccess: new Gauge({
      name: 'mon_housekeeping_last_success_timestamp_seconds',
      help: "When the job's last housekeeping pass that succeeded began (0: none since start).",
      labelNames: ['job'] as const,
      registers: [registry],
    }),
  };
  // Start labelled series at zero so every metric shows from the first scrape.
  for (const endpoint of ingestEndpoints) metrics.ingestAccepted.inc({ endpoint }, 0);
  for (const reason of rejectReasons) metrics.ingestRejected.inc({ reason }, 0);
  for (const kind of storedCheckKinds) {
    for (const status of runStatuses) metrics.checkRuns.inc({ kind, status }, 0);
  }
  metrics.engineUp.set({ engine: 'checks' }, 0);
  for (const file of ['db', 'wal']) metrics.dbBytes.set({ file }, 0);
  for (const job of housekeepingJobs) {
    metrics.housekeepingDuration.set({ job }, 0);
    metrics.housekeepingLastSuccess.set({ job }, 0);
  }
  return {
    ...metrics,
    /** The database file whose size, and its WAL's, `mon_db_bytes` shows at each scrape. */
    showDatabase(file: string): void {
      database = file;
    },
    /** Where the per-check series come from: the check engine's checks, as they are in memory. */
    showChecks(source: () => readonly CheckSample[]): void {
      checks = source;
    },
    /** The Prometheus text of every metric, the per-check series as of now. */
    async text(): Promise<string> {
      return `${await registry.metrics()}\n${checkSeriesText(checks())}`;
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A file's size, 0 when it is not there (no WAL yet, or truncated away at a close). */
function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
