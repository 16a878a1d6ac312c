import type { LiveEvent, LiveKey } from '../../protocol/live.ts';
import type { Clock, TimerHandle } from '../clock.ts';
import type { Bus } from './bus.ts';

/** SPEC "Live update stream": at most one event per 500 ms, `: ping` after 25 idle seconds, 64 streams. */
export const STREAM_COALESCE_MS = 500;
export const STREAM_IDLE_MS = 25_000;
export const MAX_STREAMS = 64;
/** Streams one session or token may hold at once, so that one caller cannot take all 64. */
export const MAX_STREAMS_PER_OWNER = 8;

export type StreamOptions = { coalesceMs?: number; idleMs?: number; max?: number; maxPerOwner?: number };

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
  flushTimer: TimerHandle | null;
  idleTimer: TimerHandle | null;
};

/**
 * Fans bus keys out to the open streams. Each stream collects keys and sends them as one
 * `data: {"invalidate":[...]}` event at most once per `coalesceMs`; `*` swallows every other key.
 * Keys published in the same tick always go out together.
 */
export class StreamHub {
  private readonly clients = new Set<Client>();
  private readonly clock: Clock;
  private readonly coalesceMs: number;
  private readonly idleMs: number;
  readonly max: number;
  readonly maxPerOwner: number;
  private readonly perOwner = new Map<string, number>();
  private readonly unsubscribe: () => void;

  constructor(bus: Bus, clock: Clock, options: StreamOptions = {}) {
    this.clock = clock;
    this.coalesceMs = options.coalesceMs ?? STREAM_COALESCE_MS;
    this.idleMs = options.idleMs ?? STREAM_IDLE_MS;
    this.max = options.max ?? MAX_STREAMS;
    this.maxPerOwner = options.maxPerOwner ?? MAX_STREAMS_PER_OWNER;
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
      flushTimer: null,
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
    if (client.flushTimer) return;
    const wait = Math.max(0, client.lastEventAt + this.coalesceMs - this.clock.now());
    client.flushTimer = this.clock.setTimeout(() => this.flush(client), wait);
  }

  private flush(client: Client): void {
    client.flushTimer = null;
    if (client.pending.size === 0 || !this.clients.has(client)) return;
    const event: LiveEvent = { invalidate: [...client.pending] };
    client.pending.clear();
    client.lastEventAt = this.clock.now();
    this.send(client, `data: ${JSON.stringify(event)}\n\n`);
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
