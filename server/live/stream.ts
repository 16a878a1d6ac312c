import { type LiveEvent, type LiveKey, liveKeys } from '../../protocol/live.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import type { Bus } from './bus.ts';

/** SPEC "Live update stream": at most one event per 500 ms, `: ping` after 25 idle seconds, 64 streams. */
export const STREAM_COALESCE_MS = 500;
export const STREAM_IDLE_MS = 25_000;
export const MAX_STREAMS = 64;
/** Streams one session or token may hold at once, so that one caller cannot take all 64. */
export const MAX_STREAMS_PER_OWNER = 8;
/**
 * Keys a stream sends at most once per an interval of their own, beyond the 500 ms of every event.
 * `analytics` changes with each tracker event (several a second on a busy site) while what it names
 * are hourly and daily sums: a read every 10 s shows as much.
 */
export const KEY_INTERVALS_MS: ReadonlyMap<LiveKey, number> = new Map([[liveKeys.analytics, 10_000]]);

export type StreamOptions = {
  coalesceMs?: number;
  idleMs?: number;
  max?: number;
  maxPerOwner?: number;
  keyIntervalsMs?: ReadonlyMap<LiveKey, number>;
};

/** An open stream's close function, or why none was opened: all streams taken, or the owner's. */
export type Opened = { close: () => void } | { refused: 'full' | 'owner' };

/**
 * Where a stream writes: the raw response in production, anything in tests. `allowed` is asked before
 * each write: a stream whose session ended or token was revoked is closed instead of written to.
 */
export type StreamSink = { write(chunk: string): void; end(): void; allowed?: () => boolean };

type Client = {
  sink: StreamSink;
  owner: string;
  pending: Set<LiveKey>;
  lastEventAt: number;
  /** When each key of `keyIntervalsMs` last went out (or the stream opened). */
  sentAt: Map<LiveKey, number>;
  flushTimer: TimerHandle | null;
  /** When `flushTimer` fires. */
  flushAt: number;
  idleTimer: TimerHandle | null;
};

/**
 * Fans bus keys out to the open streams. Each stream collects keys and sends them as one
 * `data: {"invalidate":[...]}` event at most once per `coalesceMs`; `*` swallows every other key.
 * A key of `keyIntervalsMs` goes out at most once per its interval: the first after a quiet spell
 * with the next event, later ones held (never dropped) until the interval has passed. A stream opens
 * as if it had just sent those keys, since its client reads what it shows once connected. Other
 * keys published in the same tick always go out together.
 */
export class StreamHub {
  private readonly clients = new Set<Client>();
  private readonly clock: Clock;
  private readonly coalesceMs: number;
  private readonly idleMs: number;
  readonly max: number;
  readonly maxPerOwner: number;
  private readonly perOwner = new Map<string, number>();
  private readonly keyIntervalsMs: ReadonlyMap<LiveKey, number>;
  private readonly unsubscribe: () => void;

  constructor(bus: Bus, clock: Clock, options: StreamOptions = {}) {
    this.clock = clock;
    this.coalesceMs = options.coalesceMs ?? STREAM_COALESCE_MS;
    this.idleMs = options.idleMs ?? STREAM_IDLE_MS;
    this.max = options.max ?? MAX_STREAMS;
    this.maxPerOwner = options.maxPerOwner ?? MAX_STREAMS_PER_OWNER;
    this.keyIntervalsMs = options.keyIntervalsMs ?? KEY_INTERVALS_MS;
    this.unsubscribe = bus.subscribe((keys) => {
      for (const client of this.clients) this.add(client, keys);
    });
  }

  get size(): number {
    return this.clients.size;
  }

  /** Opens a stream on `sink` for `owner` (a session or token); refused beyond `max` or `maxPerOwner`. */
  open(sink: StreamSink, owner: string): Opened {
    const held = this.perOwner.get(owner) ?? 0;
    if (held >= this.maxPerOwner) return { refused: 'owner' };
    if (this.clients.size >= this.max) return { refused: 'full' };
    this.perOwner.set(owner, held + 1);
    const client: Client = {
      sink,
      owner,
      pending: new Set(),
      lastEventAt: Number.NEGATIVE_INFINITY,
      sentAt: new Map([...this.keyIntervalsMs.keys()].map((key) => [key, this.clock.now()])),
      flushTimer: null,
      flushAt: Number.POSITIVE_INFINITY,
      idleTimer: null,
    };
    this.clients.add(client);
    this.armIdle(client);
    return { close: () => this.drop(client) };
  }

  /** Ends every stream (server shutdown). */
  closeAll(): void {
    for (const client of [...this.clients]) {
      this.drop(client);
      client.sink.end();
    }
  }

  dispose(): void {
    this.closeAll();
    this.unsubscribe();
  }

  private drop(client: Client): void {
    if (!this.clients.delete(client)) return;
    const held = (this.perOwner.get(client.owner) ?? 1) - 1;
    if (held > 0) this.perOwner.set(client.owner, held);
    else this.perOwner.delete(client.owner);
    if (client.flushTimer) this.clock.clearTimeout(client.flushTimer);
    if (client.idleTimer) this.clock.clearTimeout(client.idleTimer);
  }

  private add(client: Client, keys: readonly LiveKey[]): void {
    if (!client.pending.has('*')) {
      if (keys.includes('*')) {
        client.pending.clear();
        client.pending.add('*');
      } else {
        for (const key of keys) client.pending.add(key);
      }
    }
    this.schedule(client);
  }

  /** When `key` may go out next: after the stream's last event, and after its own interval if it has one. */
  private dueAt(client: Client, key: LiveKey): number {
    const next = client.lastEventAt + this.coalesceMs;
    const interval = this.keyIntervalsMs.get(key);
    return interval === undefined ? next : Math.max(next, (client.sentAt.get(key) ?? 0) + interval);
  }

  /** Arms the flush for the earliest pending key, unless one is armed as early. */
  private schedule(client: Client): void {
    if (!this.clients.has(client)) return;
    let at = Number.POSITIVE_INFINITY;
    for (const key of client.pending) at = Math.min(at, this.dueAt(client, key));
    if (at >= client.flushAt) return;
    if (client.flushTimer) this.clock.clearTimeout(client.flushTimer);
    client.flushAt = at;
    client.flushTimer = this.clock.setTimeout(() => this.flush(client), Math.max(0, at - this.clock.now()));
  }

  private flush(client: Client): void {
    client.flushTimer = null;
    client.flushAt = Number.POSITIVE_INFINITY;
    if (client.pending.size === 0 || !this.clients.has(client)) return;
    const now = this.clock.now();
    const due = [...client.pending].filter((key) => this.dueAt(client, key) <= now);
    if (due.length > 0) {
      // `*` stands for every key, those with intervals of their own too.
      const sent = due.includes('*') ? [...client.sentAt.keys()] : due;
      for (const key of sent) if (client.sentAt.has(key)) client.sentAt.set(key, now);
      for (const key of due) client.pending.delete(key);
      const event: LiveEvent = { invalidate: due };
      client.lastEventAt = now;
      this.send(client, `data: ${JSON.stringify(event)}\n\n`);
    }
    this.schedule(client);
  }

  private armIdle(client: Client): void {
    if (client.idleTimer) this.clock.clearTimeout(client.idleTimer);
    client.idleTimer = this.clock.setTimeout(() => {
      client.idleTimer = null;
      this.send(client, ': ping\n\n');
    }, this.idleMs);
  }

  private send(client: Client, chunk: string): void {
    if (!this.clients.has(client)) return;
    if (client.sink.allowed && !client.sink.allowed()) {
      this.drop(client);
      client.sink.end();
      return;
    }
    try {
      client.sink.write(chunk);
    } catch {
      this.drop(client);
      return;
    }
    this.armIdle(client);
  }
}
