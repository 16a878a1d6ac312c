import type { Clock } from '../clock.ts';

type Bucket = { tokens: number; at: number };

export type RateDecision = { ok: true } | { ok: false; retryAfter: number };

/**
 * Token buckets per key (a client address): `burst` requests at once, then `perSecond`.
 * The map is bounded: buckets that are full again are dropped first, then the oldest.
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

  /** Takes one token for `key`; when none is left, says how many whole seconds until one is. */
  take(key: string): RateDecision {
    const now = this.clock.now();
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
      // Re-insert so the map stays in least-recently-used order.
      this.buckets.delete(key);
    } else {
      bucket = { tokens: this.burst, at: now };
      if (this.buckets.size >= this.maxKeys) this.prune(now);
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - bucket.tokens) / this.perSecond)) };
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
