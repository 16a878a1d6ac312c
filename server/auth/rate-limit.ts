import type { Clock } from '../clock.ts';

/** `at`: when tokens were last counted; `movedAt`: when the key last moved to the map's end. */
type Bucket = { tokens: number; at: number; movedAt: number };

/**
 * A used key moves to the end of the map (most recently used) at most this often. Moving it is a delete
 * and a set, and each delete leaves an entry behind in the key's hash chain until the map is rebuilt:
 * moved at every request, one address sending thousands a second made each of its lookups walk
 * thousands of them (7.5 µs a take instead of 0.2).
 */
const MOVE_EVERY_MS = 1000;

export type RateDecision = { ok: true } | { ok: false; retryAfter: number };

/**
 * Token buckets per key (a client address): `burst` requests at once, then `perSecond`.
 * The map is bounded: buckets that are full again are dropped first, then the least recently used
 * (to within MOVE_EVERY_MS).
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly burst: number;
  private readonly perSecond: number;
  private readonly clock: Clock;
  private readonly maxKeys: number;

  constructor(options: { burst: number; perSecond: number; clock: Clock; maxKeys?: number }) {
    this.burst = options.burst;
    this.perSecond = options.perSecond;
    this.clock = options.clock;
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  /**
   * Takes `cost` tokens for `key` (one request, or its bytes; at most `burst`); when fewer are left,
   * takes none and says how many whole seconds until there are.
   */
  take(key: string, cost = 1): RateDecision {
    const now = this.clock.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
      // Re-inserted so that the map stays in least-recently-used order.
      if (now - bucket.movedAt >= MOVE_EVERY_MS) {
        bucket.movedAt = now;
        this.buckets.delete(key);
        this.buckets.set(key, bucket);
      }
    } else {
      bucket = { tokens: this.burst, at: now, movedAt: now };
      if (this.buckets.size >= this.maxKeys) this.prune(now);
      this.buckets.set(key, bucket);
    }
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { ok: true };
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((cost - bucket.tokens) / this.perSecond)) };
  }

  /**
   * Whether `key` has a token left, without taking one: for a limit checked before each request and
   * charged only for some (the agent routes charge a token that names no host).
   */
  check(key: string): RateDecision {
    const bucket = this.buckets.get(key);
    if (!bucket) return { ok: true };
    const tokens = Math.min(
      this.burst,
      bucket.tokens + ((this.clock.now() - bucket.at) / 1000) * this.perSecond,
    );
    if (tokens >= 1) return { ok: true };
    return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - tokens) / this.perSecond)) };
  }

  get size(): number {
    return this.buckets.size;
  }

  /**
   * Drops the buckets that are full again, then the least recently used until a tenth of the map is
   * free: the next new keys then add without a scan. Freeing only the few buckets just refilled would
   * scan the whole map for nearly every new key, which many addresses at once (a flood, a busy site)
   * turned into most of the server's time.
   */
  private prune(now: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.perSecond >= this.burst) this.buckets.delete(key);
    }
    const keep = this.maxKeys - Math.max(1, Math.floor(this.maxKeys / 10));
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= keep) break;
      this.buckets.delete(key);
    }
  }
}
