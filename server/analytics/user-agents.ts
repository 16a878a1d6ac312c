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
  /** In least-recently-used order; `movedAt` counts the agents added when the entry last moved. */
  private readonly cache = new Map<string, { traits: AgentTraits; movedAt: number }>();
  private added = 0;

  of(userAgent: string | undefined): AgentTraits {
    const key = userAgent ?? '';
    const known = this.cache.get(key);
    if (known) {
      // Moved to the recent end once half the cache was added since, before it could be dropped, and
      // not more often: a move is a delete and a set, and each delete leaves an entry in the key's hash
      // chain that its lookups walk (a popular agent's, moved at each event, became 10 times slower).
      if (this.added - known.movedAt > MAX_CACHED / 2) {
        known.movedAt = this.added;
        this.cache.delete(key);
        this.cache.set(key, known);
      }
      return known.traits;
    }
    const traits = parse(userAgent);
    if (key.length > MAX_CACHED_LENGTH) return traits;
    if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { traits, movedAt: ++this.added });
    return traits;
  }

  get size(): number {
    return this.cache.size;
  }
}
