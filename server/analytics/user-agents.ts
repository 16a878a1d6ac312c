import Bowser from 'bowser';
import { isBotAgent } from './bots.ts';

/** What mon keeps of a user agent: no version, no model, only the kinds the lists show. */
export type AgentTraits = {
  bot: boolean;
  /** `desktop`, `mobile` or `tablet`. */
  device: string;
  browser: string;
  os: string;
};

/** Agents remembered at most. The same few hundred agents send nearly every event. */
const MAX_CACHED = 2_000;
/** Longer agents are read each time, so that the cache stays small. */
const MAX_CACHED_LENGTH = 1_000;
const UNKNOWN = 'Unknown';

function parse(userAgent: string | undefined): AgentTraits {
  const bot = isBotAgent(userAgent);
  if (!userAgent) return { bot, device: 'desktop', browser: UNKNOWN, os: UNKNOWN };
  const parsed = Bowser.parse(userAgent);
  const type = parsed.platform.type;
  return {
    bot,
    // TVs, consoles and agents without a platform count as desktops.
    device: type === 'mobile' || type === 'tablet' ? type : 'desktop',
    browser: parsed.browser.name || UNKNOWN,
    os: parsed.os.name || UNKNOWN,
  };
}

/**
 * Reads user agents (bowser, isbot) and remembers the last MAX_CACHED, least recently used dropped
 * first: parsing costs some microseconds, a look-up almost nothing.
 */
export class UserAgents {
  private readonly cache = new Map<string, AgentTraits>();

  of(userAgent: string | undefined): AgentTraits {
    const key = userAgent ?? '';
    const known = this.cache.get(key);
    if (known) {
      // Re-insert so the map stays in least-recently-used order.
      this.cache.delete(key);
      this.cache.set(key, known);
      return known;
    }
    const traits = parse(userAgent);
    if (key.length > MAX_CACHED_LENGTH) return traits;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, traits);
    return traits;
  }

  get size(): number {
    return this.cache.size;
  }
}
