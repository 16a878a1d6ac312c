import { AGENT_SILENT_AFTER_MS } from '../../protocol/agent.ts';
import { spanText } from '../../protocol/durations.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { CheckResult } from '../checks/record.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import type { HostAlert } from '../events.ts';
import { all, int, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/** A failed silence job (storage busy) is tried again this much later. */
const RETRY_MS = 5_000;

/** The `agent:<host>` alert: the host's agent went silent, or a frame ended its silence. */
export function agentAlert(host: string, state: HostAlert['state'], ts: number, detail: string): HostAlert {
  return {
    type: 'host.alert',
    host,
    key: `agent:${host}`,
    metric: 'agent',
    name: `${host} agent`,
    service: null,
    state,
    ts,
    detail,
  };
}

/** Why a silent host's checks are unknown. */
export const silentDetail = (host: string) => `the agent on ${host} is silent`;
/** Why the checks of a host whose agent never sent a frame are unknown. */
export const notConnectedDetail = (host: string) => `the agent on ${host} has not connected yet`;

const watchedRow = mapper({ name: text, lastSeen: int });
const hostRow = mapper({ lastSeen: nullable(int), silentSince: nullable(int) });

export type SilenceWatch = {
  start(): void;
  stop(): void;
  /** A frame of `host` arrived at `at` and is committed. */
  seen(host: string, at: number): void;
  /** `host` was removed: it is no longer watched nor counted. */
  forget(host: string): void;
  /**
   * The hosts whose agent is connected (not silent, a frame since the start or within the grace after
   * it), each with the time it came to be: its first frame after a silence (or ever), or the start.
   */
  connected(): ReadonlyMap<string, number>;
};

/**
 * Agent silence (SPEC Check behavior 6): a host whose last frame is older than
 * `AGENT_SILENT_AFTER_MS` goes silent in one writer job (`silent_since`, a `silent` host event, the
 * `agent:<host>` alert failing, its checks unknown). A check created for or moved to a silent host, or
 * one whose agent never connected, is unknown too and says why. One clock timer, for the host whose
 * frame is oldest: hosts are kept in the order of their last frame, so the first is always next.
 * After a start the count begins at the later of the last frame and the start, so a server that was
 * down does not find every host silent at once. `mon_agents_connected` counts hosts with a frame
 * within the timeout.
 */
export function createSilenceWatch(options: {
  deps: Deps;
  engine: CheckEngine;
  /** The checks that run on a host's agent (assigned and command checks). */
  checksOf: (host: string) => string[];
}): SilenceWatch {
  const { deps, engine, checksOf } = options;
  const { clock } = deps;
  /** Hosts not silent, by their last frame, oldest first. */
  const lastFrame = new Map<string, number>();
  /** The same hosts, since when each is connected. */
  const since = new Map<string, number>();
  let startedAt = 0;
  let timer: TimerHandle | null = null;
  let running = false;
  /** Silence jobs to try again (storage was busy). */
  const retries = new Set<TimerHandle>();

  const deadline = (last: number) => Math.max(last, startedAt) + AGENT_SILENT_AFTER_MS;

  function arm(): void {
    if (timer) clock.clearTimeout(timer);
    timer = null;
    const first = lastFrame.values().next();
    if (!running || first.done) return;
    timer = clock.setTimeout(sweep, Math.max(0, deadline(first.value) - clock.now()));
  }

  function count(now: number): void {
    // Only hosts still in their grace after a start can be older than the timeout here: a prefix.
    let stale = 0;
    for (const last of lastFrame.values()) {
      if (last >= now - AGENT_SILENT_AFTER_MS) break;
      stale++;
    }
    deps.metrics.agentsConnected.set(lastFrame.size - stale);
  }

  function sweep(): void {
    timer = null;
    const now = clock.now();
    const due: string[] = [];
    for (const [host, last] of lastFrame) {
      if (deadline(last) > now) break;
      due.push(host);
    }
    for (const host of due) {
      lastFrame.delete(host);
      since.delete(host);
    }
    count(now);
    if (due.length > 0) silence(due, now);
    arm();
  }

  function silence(hosts: string[], now: number): void {
    deps.store.writer
      .run((db, tx) => {
        const events: HostAlert[] = [];
        const silenced: string[] = [];
        for (const host of hosts) {
          const row = one(db, 'SELECT last_seen, silent_since FROM hosts WHERE name = ?', hostRow, host);
          // A frame committed since the sweep, or a silence already stored: nothing to do.
          if (!row || row.lastSeen === null || row.silentSince !== null || deadline(row.lastSeen) > now)
            continue;
          const detail = `no frame for ${spanText(now - row.lastSeen)}`;
          statement(db, 'UPDATE hosts SET silent_since = ? WHERE name = ?').run(now, host);
          statement(
            db,
            `INSERT INTO host_events (host, ts, kind, subject, service, detail) VALUES (?, ?, 'silent', 'agent', NULL, ?)`,
          ).run(host, now, detail);
          events.push(agentAlert(host, 'failing', now, detail));
          silenced.push(host);
        }
        deps.events.dispatch(tx, events, now);
        // The checks turn unknown in the same job: a crash cannot keep the silence and lose them.
        const unknowns: CheckResult[] = silenced.flatMap((host) =>
          checksOf(host).map((checkId) => ({
            type: 'unknown' as const,
            checkId,
            ts: now,
            detail: silentDetail(host),
          })),
        );
        if (unknowns.length > 0) engine.recordIn(tx, unknowns);
      })
      .catch((error: unknown) => {
        deps.log.warn('agent silence not stored; trying again', {
          hosts: hosts.length,
          error: String(error),
        });
        const retry = clock.setTimeout(() => {
          retries.delete(retry);
          if (running) silence(hosts, clock.now());
        }, RETRY_MS);
        retries.add(retry);
      });
  }

  /** Why nobody runs a host's checks now: its agent is silent or never connected; null when it runs them. */
  function idleReason(host: string): string | null {
    const row = one(
      deps.store.read,
      'SELECT last_seen, silent_since FROM hosts WHERE name = ?',
      hostRow,
      host,
    );
    if (row !== undefined && row.silentSince !== null) return silentDetail(host);
    if (row === undefined || row.lastSeen === null) return notConnectedDetail(host);
    return null;
  }

  // A check that comes to a host nobody runs it on (created for it, moved to it, or taken in at start)
  // says why it is unknown, rather than keeping a state nobody updates.
  engine.onCheckChange((before, after) => {
    const host = after?.def.from ?? null;
    if (!after || host === null || before?.def.from === host) return;
    const reason = idleReason(host);
    if (reason !== null) engine.markUnknown(after.rec.id, clock.now(), reason);
  });

  return {
    start() {
      startedAt = clock.now();
      running = true;
      for (const h of all(
        deps.store.read,
        'SELECT name, last_seen FROM hosts WHERE last_seen IS NOT NULL AND silent_since IS NULL ORDER BY last_seen',
        watchedRow,
      )) {
        lastFrame.set(h.name, h.lastSeen);
        since.set(h.name, startedAt);
      }
      count(startedAt);
      arm();
    },
    stop() {
      running = false;
      arm();
      for (const t of retries) clock.clearTimeout(t);
      retries.clear();
    },
    seen(host, at) {
      if (!since.has(host)) since.set(host, at);
      lastFrame.delete(host);
      lastFrame.set(host, at);
      count(clock.now());
      if (timer === null) arm();
    },
    forget(host) {
      since.delete(host);
      if (!lastFrame.delete(host)) return;
      count(clock.now());
      arm();
    },
    connected: () => since,
  };
}
