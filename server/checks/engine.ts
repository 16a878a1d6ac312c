import { definitionOf } from '../../protocol/check.ts';
import { runners as defaultRunners } from '../../runners/index.ts';
import type { RunContext, Runner, RunOutcome, ServerRunKind } from '../../runners/run.ts';
import type { Deps } from '../deps.ts';
import { type Housekeeping, housekeeping } from '../housekeeping.ts';
import { notFound } from '../problem.ts';
import type { IngestQueue } from '../store/ingest.ts';
import type { Tx } from '../store/writer.ts';
import { reconcileFile } from './file-sync.ts';
import { expectedAfter, heartbeatDeadline } from './heartbeats.ts';
import { pruneResults } from './prune.ts';
import { applyResults, type CheckResult, type Entry, type RecordContext } from './record.ts';
import { Scheduler } from './scheduler.ts';
import type { CheckRecord } from './store.ts';
import { loadChecks } from './store.ts';

export type { Entry } from './record.ts';

export type CheckChangeListener = (before: Entry | undefined, after: Entry | undefined) => void;

export type EngineOptions = {
  /** The runner of each kind (default: the real ones); a kind without one is not run here. */
  runners?: Partial<Record<ServerRunKind, Runner>>;
  /** Runs in flight at most (default 256). */
  concurrency?: number;
  /** Extra run settings (test resolvers, RDAP bootstrap, extra roots). */
  runContext?: Partial<Pick<RunContext, 'dnsServers' | 'rdapBootstrapUrl' | 'extraCa'>>;
  /** Observes each scheduled start and its lateness (benchmarks). */
  onStart?: (id: string, lateMs: number) => void;
};

/**
 * Results of the server's own runs kept in memory at most while storage is busy (about a minute of
 * 30,000 checks every 10 s); beyond, the oldest are dropped and logged. docs/operating.md says so.
 */
export const MAX_KEPT_RESULTS = 200_000;

/**
 * A heartbeat's deadline fired: if its miss is not stored by then (storage busy, the write failed),
 * the deadline fires again after this long. A stored miss schedules the next deadline instead.
 */
const MISSED_RETRY_MS = 60_000;

/**
 * Runs server-side checks on one scheduler and records every result (server run, agent run, heartbeat
 * ping or miss) through one ingest queue: the state machine runs inside the writer job that stores the
 * result, with its domain events, so memory, storage and subscribers never disagree.
 */
export class CheckEngine {
  readonly deps: Deps;
  private readonly options: EngineOptions;
  private readonly entries = new Map<string, Entry>();
  private readonly byToken = new Map<string, string>();
  private readonly scheduler: Scheduler;
  private readonly results: IngestQueue<CheckResult>;
  private readonly record: RecordContext;
  /** Runs in flight, aborted when the engine stops. */
  private readonly inFlight = new Set<AbortController>();
  /** Runs and rollups past their time, and file checks removed a day ago, pruned every hour. */
  private readonly housekeeping: Housekeeping;
  private reconciling: Promise<void> = Promise.resolve();
  private unsubscribe: () => void = () => {};
  /** Told after a check is taken in, changed or removed (agents' long polls wake on it). */
  private readonly changeListeners = new Set<CheckChangeListener>();
  running = false;

  constructor(deps: Deps, options: EngineOptions = {}) {
    this.deps = deps;
    this.options = { ...options, runners: options.runners ?? defaultRunners };
    this.scheduler = new Scheduler({
      clock: deps.clock,
      concurrency: options.concurrency ?? 256,
      run: (id, at) => this.due(id, at),
      ...(options.onStart ? { onStart: options.onStart } : {}),
    });
    this.record = {
      entry: (id) => this.entries.get(id),
      dispatch: (tx, events) => deps.events.dispatch(tx, events, deps.clock.now()),
      scheduleDeadline: (entry) => this.scheduleDeadline(entry),
      onRun: (kind, status) => deps.metrics.checkRuns.inc({ kind, status }),
    };
    this.results = deps.store.ingestQueue<CheckResult>({
      maxKept: MAX_KEPT_RESULTS,
      onUnavailable: () => deps.metrics.ingestRejected.inc({ reason: 'queue_full' }),
      // A dropped miss leaves its heartbeat's fallback deadline in place (see `due`).
      onDropped: (items, why) => deps.log.warn('check results dropped', { count: items.length, why }),
      apply: (tx, items, refuse) => applyResults(this.record, tx, items, refuse),
    });
    this.housekeeping = housekeeping(deps, 'checks', () => [
      { failed: 'pruning check runs failed', run: () => pruneResults(deps, [...this.entries.keys()]) },
    ]);
  }

  /** /healthz: the engine must be running. */
  health(): string | null {
    return this.running ? null : 'check engine not running';
  }

  /**
   * Loads checks, spreads their first runs over their intervals, starts the scheduler and takes in the
   * checks of mon.toml now and after each reload.
   */
  async start(): Promise<void> {
    const now = this.deps.clock.now();
    for (const rec of loadChecks(this.deps.store.read)) {
      try {
        this.adopt(rec, 'spread', now);
      } catch (error) {
        // One unusable stored definition must not keep the server from starting.
        this.deps.log.error('check not scheduled', { id: rec.id, name: rec.name, error: String(error) });
      }
    }
    this.running = true;
    this.scheduler.start();
    this.deps.metrics.engineUp.set({ engine: 'checks' }, 1);
    this.housekeeping.start();
    // A mon.toml rejected at start: its checks stay as stored (running, history kept), as the last good
    // file left them, until a good file loads; never deleted because the file has an error.
    if (this.deps.config.error() === null) await this.reconcile();
    else this.deps.log.warn('mon.toml has an error: its checks run as last loaded');
    this.unsubscribe = this.deps.config.onChange(() => void this.reconcile());
  }

  /** Takes in mon.toml's checks; reloads queue behind each other. */
  reconcile(): Promise<void> {
    this.reconciling = this.reconciling.then(() =>
      this.running ? reconcileFile(this, this.deps.config.current()) : undefined,
    );
    return this.reconciling;
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    this.unsubscribe();
    this.scheduler.stop();
    this.housekeeping.stop();
    for (const run of this.inFlight) run.abort(new Error('the server is stopping'));
    this.deps.metrics.engineUp.set({ engine: 'checks' }, 0);
    await this.reconciling;
    await this.results.close();
  }

  get(id: string): Entry | undefined {
    return this.entries.get(id);
  }

  all(): Entry[] {
    return [...this.entries.values()];
  }

  idForTokenHash(hash: string): string | undefined {
    return this.byToken.get(hash);
  }

  /** Takes a stored check into memory and schedules it: at once, or spread by a hash of its id. */
  adopt(rec: CheckRecord, when: 'now' | 'spread', now = this.deps.clock.now()): void {
    const old = this.entries.get(rec.id);
    if (old?.rec.pingTokenHash) this.byToken.delete(old.rec.pingTokenHash);
    const def = definitionOf(rec.body);
    const entry: Entry = {
      rec,
      def,
      version: (old?.version ?? 0) + 1,
      // A run in flight belongs to the old entry (its result is dropped by version): the new one is idle.
      running: false,
      hb: null,
    };
    this.entries.set(rec.id, entry);
    if (rec.pingTokenHash) this.byToken.set(rec.pingTokenHash, rec.id);
    if (rec.kind === 'heartbeat') {
      // A changed heartbeat starts its period now; else the stored expected time holds across restarts.
      const changed = when === 'now' && old !== undefined;
      const expectedAt = changed
        ? expectedAfter(def, now)
        : (rec.expectedAt ?? expectedAfter(def, rec.lastPingAt ?? rec.createdAt));
      entry.hb = { expectedAt, startedAt: rec.startedAt };
      rec.expectedAt = expectedAt;
      this.scheduleDeadline(entry);
      if (changed) this.results.offer({ type: 'record', checkId: rec.id, ts: now });
    } else {
      rec.expectedAt = null;
      if (this.runsHere(entry)) {
        this.scheduler.set(rec.id, when === 'now' ? now : now + (hash(rec.id) % def.everyMs));
      } else {
        this.scheduler.remove(rec.id);
      }
    }
    for (const listener of this.changeListeners) listener(old, entry);
  }

  /**
   * Calls `listener` after each check taken in, changed (`before` and `after`) or removed (`after`
   * undefined); adopt and forget run once the change is committed. Returns the unsubscribe.
   */
  onCheckChange(listener: CheckChangeListener): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** Schedules a heartbeat's deadline (never behind runs). */
  private scheduleDeadline(entry: Entry): void {
    if (!entry.hb) return;
    this.scheduler.set(entry.rec.id, heartbeatDeadline(entry.def, entry.hb).at, true);
  }

  forget(id: string): void {
    const entry = this.entries.get(id);
    if (entry?.rec.pingTokenHash) this.byToken.delete(entry.rec.pingTokenHash);
    this.entries.delete(id);
    this.scheduler.remove(id);
    if (entry) for (const listener of this.changeListeners) listener(entry, undefined);
  }

  /** Points a heartbeat at a new ping token hash. */
  setToken(id: string, tokenHash: string | null): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    if (entry.rec.pingTokenHash) this.byToken.delete(entry.rec.pingTokenHash);
    entry.rec.pingTokenHash = tokenHash;
    if (tokenHash) this.byToken.set(tokenHash, id);
  }

  private runsHere(entry: Entry): boolean {
    return (
      !entry.rec.hostDefined &&
      entry.def.from === null &&
      this.options.runners?.[entry.rec.kind as ServerRunKind] !== undefined
    );
  }

  private due(id: string, at: number): Promise<void> | void {
    const entry = this.entries.get(id);
    if (!entry) return;
    if (entry.hb) {
      // The next deadline is scheduled once this miss is written; until then a fallback stands.
      const now = this.deps.clock.now();
      this.scheduler.set(id, now + MISSED_RETRY_MS, true);
      this.results.offer({ type: 'missed', checkId: id, ts: now, version: entry.version });
      return;
    }
    const now = this.deps.clock.now();
    const every = entry.def.everyMs;
    this.scheduler.set(id, at + every * (Math.floor((now - at) / every) + 1));
    if (entry.running) return;
    return this.runCheck(entry);
  }

  private async runCheck(entry: Entry): Promise<void> {
    const runner = this.options.runners?.[entry.rec.kind as ServerRunKind];
    const def = entry.def;
    if (!runner || def.kind === 'command') return;
    const { clock } = this.deps;
    const version = entry.version;
    const ts = clock.now();
    const timeout = new AbortController();
    const timer = clock.setTimeout(() => timeout.abort(new Error('timeout')), def.timeoutMs);
    entry.running = true;
    this.inFlight.add(timeout);
    let outcome: RunOutcome;
    try {
      outcome = await runner(def, {
        ...this.options.runContext,
        runBy: 'server',
        env: this.deps.env,
        // Checked again at each run: the list may have shrunk since the check was saved.
        ...(!entry.rec.managed && { allowedEnv: this.deps.config.current().checkSettings.apiEnv }),
        signal: timeout.signal,
        now: () => clock.now(),
      });
    } catch (error) {
      outcome = { status: 'down', latencyMs: null, detail: (error as Error).message || String(error) };
    } finally {
      clock.clearTimeout(timer);
      this.inFlight.delete(timeout);
      entry.running = false;
    }
    // A check changed or deleted during its run runs again with its new definition; drop this result.
    if (!this.running || this.entries.get(entry.rec.id) !== entry || entry.version !== version) return;
    this.results.offer({ type: 'run', checkId: entry.rec.id, ts, outcome, version });
  }

  /**
   * Records one run of a check from outside the scheduler. Resolves once stored; rejects
   * with 503 when storage cannot take it, and then nothing changed.
   */
  recordRun(checkId: string, outcome: RunOutcome, ts: number): Promise<void> {
    return this.results.submit({ type: 'run', checkId, ts, outcome });
  }

  /**
   * Applies results inside the caller's writer job, so that they commit with what caused them (an
   * agent's runs with the rest of its batch, a silence's unknowns with the silence) and never wait in
   * the engine's queue behind heartbeat pings. A result of a check that is gone is skipped. Returns
   * how many were stored.
   */
  recordIn(tx: Tx, results: CheckResult[]): number {
    return applyResults(this.record, tx, results, () => {});
  }

  /** Nobody runs the check now (its agent is silent, never connected, or too old): unknown until its next run. */
  markUnknown(checkId: string, ts: number, detail: string): void {
    this.results.offer({ type: 'unknown', checkId, ts, detail });
  }

  /**
   * A heartbeat ping (success, failure or start). Resolves once stored, so the ping can be answered;
   * rejects with 503 when storage cannot take it.
   */
  heartbeat(
    entry: Entry,
    ping: 'success' | 'fail' | 'start',
    detail: string,
    latencyMs: number | null,
  ): Promise<void> {
    if (!entry.hb) return Promise.reject(notFound('this check takes no pings'));
    const ts = this.deps.clock.now();
    return this.results.submit({ type: 'ping', checkId: entry.rec.id, ts, ping, detail, latencyMs });
  }

  /** Resolves once every result recorded so far is written (or refused). */
  flush(): Promise<void> {
    return this.results.flush();
  }

  /** Resolves once the pruning pass under way, if any, is done. */
  pruned(): Promise<void> {
    return this.housekeeping.idle();
  }
}

/** A stable spread of first runs: FNV-1a of the id. */
function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
