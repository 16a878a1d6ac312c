import { type CheckDefinition, withDefaults } from '../../protocol/check.ts';
import { liveKeys } from '../../protocol/live.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { observeExpiry } from './expiry.ts';
import {
  afterMissed,
  expectedAfter,
  type HeartbeatTimes,
  heartbeatDeadline,
  missedDetail,
} from './heartbeats.ts';
import { reconcileFile } from './manage.ts';
import { pruneResults, ResultQueue } from './results.ts';
import { HOUR } from './rollups.ts';
import type { RunContext, Runner, RunOutcome, ServerRunKind } from './run.ts';
import { runners as defaultRunners } from './runners/index.ts';
import type { RunWrite } from './runs.ts';
import { Scheduler } from './scheduler.ts';
import { applyHeartbeat, applyRun, applyUnknown, type CheckStatus, type Transition } from './state.ts';
import type { Change, CheckRecord } from './store.ts';
import { loadChecks } from './store.ts';

/** A status change of a check, for alerts and incidents. */
export type TransitionEvent = Transition & {
  checkId: string;
  name: string;
  service: string;
  kind: CheckRecord['kind'];
  ts: number;
  detail: string;
};

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

/** A check as the engine holds it: the stored record (state is newest here) and its definition. */
export type Entry = {
  rec: CheckRecord;
  def: CheckDefinition;
  version: number;
  running: boolean;
  hb: HeartbeatTimes | null;
};

const engines = new WeakMap<Deps, CheckEngine>();

/** The check engine of a server (route modules find it through their deps). */
export function checkEngine(deps: Deps): CheckEngine {
  const engine = engines.get(deps);
  if (!engine) throw new Error('the check engine is not created');
  return engine;
}

export function createCheckEngine(deps: Deps, options: EngineOptions = {}): CheckEngine {
  const engine = new CheckEngine(deps, options);
  engines.set(deps, engine);
  deps.health.push(() => (engine.running ? null : 'check engine not running'));
  return engine;
}

/**
 * Runs server-side checks on one scheduler, applies the state machine to every run (server, agent or
 * heartbeat), and writes results in batches so a slow disk delays writes, never runs.
 */
export class CheckEngine {
  readonly deps: Deps;
  private readonly options: EngineOptions;
  private readonly entries = new Map<string, Entry>();
  private readonly byToken = new Map<string, string>();
  private readonly scheduler: Scheduler;
  private readonly listeners = new Set<(event: TransitionEvent) => void>();
  private readonly results: ResultQueue;
  /** Runs in flight, aborted when the engine stops. */
  private readonly inFlight = new Set<AbortController>();
  private timers: TimerHandle[] = [];
  private reconciling: Promise<void> = Promise.resolve();
  private unsubscribe: () => void = () => {};
  running = false;

  constructor(deps: Deps, options: EngineOptions) {
    this.deps = deps;
    this.options = { ...options, runners: options.runners ?? defaultRunners };
    this.results = new ResultQueue(deps, () => this.running);
    this.scheduler = new Scheduler({
      clock: deps.clock,
      concurrency: options.concurrency ?? 256,
      run: (id, at) => this.due(id, at),
      ...(options.onStart ? { onStart: options.onStart } : {}),
    });
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
    this.plan(() => pruneResults(this.deps, [...this.entries.keys()]), HOUR);
    // A mon.toml rejected at start leaves an empty configuration: its checks stay as stored (running,
    // history kept) until a good file loads, rather than being deleted.
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
    for (const t of this.timers) this.deps.clock.clearTimeout(t);
    this.timers = [];
    for (const run of this.inFlight) run.abort(new Error('the server is stopping'));
    this.deps.metrics.engineUp.set({ engine: 'checks' }, 0);
    await this.reconciling;
    await this.flush();
  }

  onTransition(listener: (event: TransitionEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
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
    const def = withDefaults(rec.body);
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
      this.scheduleDeadline(entry);
      if (changed) void this.enqueue({ record: snapshot(rec), run: null, changes: [] });
    } else if (this.runsHere(entry)) {
      this.scheduler.set(rec.id, when === 'now' ? now : now + (hash(rec.id) % def.everyMs));
    } else {
      this.scheduler.remove(rec.id);
    }
    if (!entry.hb) rec.expectedAt = null;
  }

  /** Schedules a heartbeat's deadline (never behind runs); its expected time goes with the next write. */
  private scheduleDeadline(entry: Entry): void {
    const hb = entry.hb!;
    entry.rec.expectedAt = hb.expectedAt;
    this.scheduler.set(entry.rec.id, heartbeatDeadline(entry.def, hb).at, true);
  }

  forget(id: string): void {
    const entry = this.entries.get(id);
    if (entry?.rec.pingTokenHash) this.byToken.delete(entry.rec.pingTokenHash);
    this.entries.delete(id);
    this.scheduler.remove(id);
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
    if (entry.hb) return this.heartbeatMissed(entry);
    const now = this.deps.clock.now();
    const every = entry.def.everyMs;
    this.scheduler.set(id, at + every * (Math.floor((now - at) / every) + 1));
    if (entry.running) return;
    return this.runCheck(entry);
  }

  private async runCheck(entry: Entry): Promise<void> {
    const runner = this.options.runners?.[entry.rec.kind as ServerRunKind];
    if (!runner) return;
    const { clock } = this.deps;
    const version = entry.version;
    const ts = clock.now();
    const timeout = new AbortController();
    const timer = clock.setTimeout(() => timeout.abort(new Error('timeout')), entry.def.timeoutMs);
    entry.running = true;
    this.inFlight.add(timeout);
    let outcome: RunOutcome;
    try {
      outcome = await runner(entry.def, {
        ...this.options.runContext,
        env: this.deps.env,
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
    void this.recordRun(entry.rec.id, outcome, ts);
  }

  /**
   * Records one run of a check, from the server's scheduler, an agent, or a heartbeat ping. Resolves once
   * written; callers that answer nobody need not wait.
   */
  recordRun(checkId: string, outcome: RunOutcome, ts: number): Promise<void> {
    const entry = this.entries.get(checkId);
    if (!entry) return Promise.resolve();
    const { rec } = entry;
    const apply = entry.hb ? applyHeartbeat : applyRun;
    const { state, transition } = apply(rec.state, outcome.status, ts);
    rec.state = state;
    rec.lastRunAt = ts;
    rec.lastLatencyMs = outcome.latencyMs;
    rec.lastDetail = outcome.detail;
    if (outcome.value !== undefined) rec.lastValue = outcome.value;
    const changes: Change[] = [];
    const change = (status: CheckStatus | null, title: string, detail: string) =>
      changes.push({ checkId, service: rec.service, ts, status, title, detail });
    if (transition) change(transition.to, titleOf(transition), outcome.detail);
    if (outcome.expiry) observeExpiry(rec, outcome.expiry, ts, change);
    this.deps.metrics.checkRuns.inc({ kind: rec.kind, status: outcome.status });
    const run = {
      checkId,
      ts,
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      detail: outcome.detail,
      value: outcome.value ?? null,
    };
    const written = this.enqueue({ record: snapshot(rec), run, changes });
    if (transition) {
      this.deps.bus.publish(liveKeys.service(rec.service), liveKeys.overview);
      this.emit(rec, transition, ts, outcome.detail);
    } else {
      this.deps.bus.publish(liveKeys.service(rec.service));
    }
    return written;
  }

  /** The check's agent went silent: it is unknown until its next run. */
  markUnknown(checkId: string, ts: number, detail: string): Promise<void> {
    const entry = this.entries.get(checkId);
    if (!entry || entry.rec.state.status === 'unknown') return Promise.resolve();
    const { rec } = entry;
    const { state, transition } = applyUnknown(rec.state, ts);
    rec.state = state;
    const changes: Change[] = transition
      ? [{ checkId, service: rec.service, ts, status: 'unknown', title: 'unknown', detail }]
      : [];
    this.deps.bus.publish(liveKeys.service(rec.service), liveKeys.overview);
    if (transition) this.emit(rec, transition, ts, detail);
    return this.enqueue({ record: snapshot(rec), run: null, changes });
  }

  private emit(rec: CheckRecord, transition: Transition, ts: number, detail: string): void {
    const { id: checkId, name, service, kind } = rec;
    const event: TransitionEvent = { ...transition, checkId, name, service, kind, ts, detail };
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.deps.log.error('check transition listener failed', { error: String(error) });
      }
    }
  }

  /** A heartbeat ping (success, failure or start). Resolves once written. */
  heartbeat(
    entry: Entry,
    kind: 'success' | 'fail' | 'start',
    detail: string,
    latencyMs: number | null,
  ): Promise<void> {
    const { rec, def } = entry;
    const now = this.deps.clock.now();
    if (!entry.hb) return Promise.resolve();
    if (kind === 'start') {
      rec.startedAt = now;
      entry.hb = { ...entry.hb, startedAt: now };
      this.scheduleDeadline(entry);
      this.deps.bus.publish(liveKeys.service(rec.service));
      return this.enqueue({ record: snapshot(rec), run: null, changes: [] });
    }
    const latency = latencyMs ?? (rec.startedAt !== null ? now - rec.startedAt : null);
    rec.lastPingAt = now;
    rec.startedAt = null;
    entry.hb = { expectedAt: expectedAfter(def, now), startedAt: null };
    this.scheduleDeadline(entry);
    return this.recordRun(
      rec.id,
      { status: kind === 'success' ? 'up' : 'down', latencyMs: latency, detail },
      now,
    );
  }

  private heartbeatMissed(entry: Entry): void {
    const hb = entry.hb!;
    const now = this.deps.clock.now();
    const { reason } = heartbeatDeadline(entry.def, hb);
    const detail = missedDetail(entry.def, hb, reason, entry.rec.lastPingAt);
    entry.hb = afterMissed(entry.def, hb, reason, now);
    entry.rec.startedAt = entry.hb.startedAt;
    // The advanced expected time is written with this run, in the same transaction.
    this.scheduleDeadline(entry);
    void this.recordRun(entry.rec.id, { status: 'down', latencyMs: null, detail }, now);
  }

  private enqueue(write: RunWrite): Promise<void> {
    return this.results.enqueue(write);
  }

  /** Resolves once every result recorded so far is written. */
  flush(): Promise<void> {
    return this.results.flush();
  }

  private plan(fn: () => Promise<void>, everyMs: number): void {
    const handle = this.deps.clock.setTimeout(() => {
      this.timers = this.timers.filter((t) => t !== handle);
      if (!this.running) return;
      void fn().finally(() => this.running && this.plan(fn, everyMs));
    }, everyMs);
    this.timers.push(handle);
  }
}

function titleOf(t: Transition): string {
  if ((t.from === 'down' || t.recovered) && t.to !== 'down') return `recovered: ${t.to}`;
  return t.to;
}

function snapshot(rec: CheckRecord): CheckRecord {
  return { ...rec, state: { ...rec.state }, expiry: rec.expiry ? { ...rec.expiry } : null };
}

/** A stable spread of first runs: FNV-1a of the id. */
function hash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
