import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { OutboundRefused, type OutboundRequest, outboundRequest } from '../http/outbound.ts';
import { resultOfStatus } from '../notify/channels/kind.ts';
import { hideSecrets } from '../notify/secrets.ts';
import type { Tx } from '../store/writer.ts';
import { recordOutcome, type SendOutcome } from './store.ts';
import { addressOf, sameTarget, type Target, type WatchdogKind } from './targets.ts';

/**
 * The requests of one watchdog target: one at once when the target is set (or mon starts), then one
 * every `[watchdog] every` on the clock, each stored as it comes back (`last_sent_at` on a 2xx, the
 * error otherwise). A target that changes makes the answers of requests sent to the old one
 * irrelevant: the writer job that changes it calls `retire`, and their outcomes are dropped.
 */

/** How long one request may take; the interval is at least 10 s, so one never overlaps the next. */
const TIMEOUT_MS = 10_000;

/** What each kind sends (an exhaustive table: a new kind without its request does not compile). */
const requestOf: Record<
  WatchdogKind,
  (target: Target, at: number, publicUrl: string | null) => OutboundRequest
> = {
  // The edge alerts when these stop; the body tells it which mon sent them.
  edge: (target, at, publicUrl) => ({
    url: target.url,
    method: 'POST',
    headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ service: 'mon', ts: at, url: publicUrl }),
    allowPrivate: target.allowPrivate,
  }),
  // A dead-man's-switch ping URL: any GET counts.
  heartbeat: (target) => ({ url: target.url, method: 'GET', allowPrivate: target.allowPrivate }),
};

const labelOf: Record<WatchdogKind, string> = { edge: 'the edge', heartbeat: 'the heartbeat URL' };

/** The outcome of a request that threw, in words. */
export function outcomeOfError(error: unknown): SendOutcome {
  if (error instanceof OutboundRefused && error.privateAddress) {
    return {
      ok: false,
      error: `${error.refusal}; allowPrivate (allow_private in mon.toml) lets it reach private addresses`,
    };
  }
  const e = error as NodeJS.ErrnoException;
  // outboundRequest's time limit runs out as an error of this code.
  if (e?.code === 'ETIMEDOUT') return { ok: false, error: `no answer within ${TIMEOUT_MS / 1000} s` };
  return { ok: false, error: e?.message ?? String(error) };
}

/** The target's secrets: its token, and the path (with the query) of a heartbeat URL. */
function secretsOfTarget(target: Target): string[] {
  const secrets = target.token ? [target.token] : [];
  if (target.kind === 'heartbeat') {
    const url = new URL(target.url);
    const secretPart = `${url.pathname}${url.search}`;
    if (secretPart.length > 1) secrets.push(secretPart);
  }
  return secrets;
}

export class TargetSender {
  private readonly deps: Deps;
  private readonly kind: WatchdogKind;
  private target: Target | null = null;
  /** Bumped whenever the target changes; an answer of an older generation is not stored. */
  private generation = 0;
  private timer: TimerHandle | null = null;
  /** When the last request was due: the next is due an interval later. */
  private lastTickAt = 0;
  /** The generation whose request is on its way, and how to abort it. */
  private inFlight: { generation: number; controller: AbortController } | null = null;
  private readonly pending = new Set<Promise<void>>();
  /** Whether the last stored outcome was a failure (a line is logged when this changes). */
  private failing = false;
  private stopped = false;

  constructor(deps: Deps, kind: WatchdogKind) {
    this.deps = deps;
    this.kind = kind;
  }

  /** The target being sent to, or null. */
  current(): Target | null {
    return this.target;
  }

  /** Whether `target` differs from the one being sent to (settings or origin). */
  differs(target: Target | null): boolean {
    return !sameTarget(this.target, target) || this.target?.managed !== target?.managed;
  }

  /**
   * Called inside the writer job that changes this kind's target: from then on, outcomes of requests
   * sent before are dropped (also when they are stored by a later job of the same transaction).
   */
  retire(tx: Tx): void {
    const before = this.generation;
    this.generation = before + 1;
    tx.onRollback(() => {
      this.generation = before;
    });
  }

  /** After the commit that set it: sends to `target` now, then every interval; null stops. */
  follow(target: Target | null): void {
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    this.inFlight?.controller.abort();
    this.target = target;
    this.failing = false;
    if (target && !this.stopped) this.tick();
  }

  /** Stops the timer and aborts the request on its way; resolves once nothing is left running. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) this.deps.clock.clearTimeout(this.timer);
    this.timer = null;
    this.inFlight?.controller.abort();
    await Promise.all(this.pending);
  }

  /**
   * `[watchdog] every` changed: the next request is due the new interval after the last one (at once
   * when that has passed), not after the old interval runs out.
   */
  retime(): void {
    if (!this.timer) return;
    this.deps.clock.clearTimeout(this.timer);
    this.arm();
  }

  private tick(): void {
    const target = this.target;
    if (!target || this.stopped) return;
    // The next one is due an interval after this one was due, whatever this one takes.
    this.lastTickAt = this.deps.clock.now();
    this.arm();
    if (this.inFlight?.generation === this.generation) return;
    const sending = this.send(target, this.generation).finally(() => this.pending.delete(sending));
    this.pending.add(sending);
  }

  private arm(): void {
    const due = this.lastTickAt + this.deps.config.current().watchdog.everyMs;
    this.timer = this.deps.clock.setTimeout(() => this.tick(), Math.max(0, due - this.deps.clock.now()));
  }

  private async send(target: Target, generation: number): Promise<void> {
    const { deps } = this;
    const controller = new AbortController();
    this.inFlight = { generation, controller };
    const at = deps.clock.now();
    const publicUrl = deps.config.current().server.url;
    let outcome: SendOutcome;
    try {
      const answer = await outboundRequest({
        ...requestOf[this.kind](target, at, publicUrl),
        signal: controller.signal,
        timeoutMs: TIMEOUT_MS,
      });
      const result = resultOfStatus(labelOf[this.kind], answer.status, answer.body);
      outcome = result.ok ? { ok: true } : { ok: false, error: result.error };
    } catch (error) {
      outcome = outcomeOfError(error);
    } finally {
      if (this.inFlight?.controller === controller) this.inFlight = null;
    }
    if (this.stopped || generation !== this.generation) return;
    if (!outcome.ok) outcome = { ok: false, error: hideSecrets(outcome.error, secretsOfTarget(target)) };
    try {
      const stored = await deps.store.writer.run((db) => {
        if (generation !== this.generation) return false;
        recordOutcome(db, this.kind, outcome, at);
        return true;
      });
      if (stored) this.logChange(target, outcome);
    } catch (error) {
      deps.log.error('the watchdog could not store a request outcome', {
        target: this.kind,
        error: String(error),
      });
    }
  }

  /** One line when a target starts failing and one when it works again, not one per request. */
  private logChange(target: Target, outcome: SendOutcome): void {
    const fields = { target: this.kind, address: addressOf(this.kind, target.url) };
    if (!outcome.ok && !this.failing) {
      this.deps.log.warn('a watchdog request failed', { ...fields, error: outcome.error });
    } else if (outcome.ok && this.failing) {
      this.deps.log.info('watchdog requests go through again', fields);
    }
    this.failing = !outcome.ok;
  }
}
