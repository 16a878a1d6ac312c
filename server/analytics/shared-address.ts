import { createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { SharedAddress } from '../../protocol/analytics.ts';
import { HOUR } from '../../protocol/durations.ts';
import { DistinctCount } from './distinct-count.ts';

/** Hours looked back. */
const WINDOW_HOURS = 24;
/** Untrusted forwarding peers counted per site and hour at most. */
const MAX_PEERS = 64;
/** Client addresses followed per site and hour at most. */
const MAX_ADDRESSES = 2_000;
/** (address, visitor) pairs kept per site and hour at most: about 20 bytes each. */
const MAX_PAIRS = 20_000;
/**
 * A shared address is named when this many visitors share it… An untrusted forwarding peer is named
 * only once it forwarded as many different X-Forwarded-For values: behind a reverse proxy mon does not
 * trust, every visitor has the proxy's address, and their ids differ by browser only (150 people on 12
 * browser versions are 12 visitors), while what the proxy writes differs per person. One person whose
 * browser extension or own proxy adds the header sends one value, and is never named.
 */
export const SHARED_ADDRESS_MIN = 20;
/** …and they are at least this percent of the site's visitors. */
export const PROXY_MIN_PERCENT = 10;

type Peer = { events: number; values: Set<number> };

/** An event's untrusted forwarding peer, and the X-Forwarded-For it sent. */
export type Forwarded = { peer: string; forwardedFor: string };

type Hour = {
  at: number;
  events: number;
  /** Per untrusted forwarding peer: its events, and its X-Forwarded-For values (keyed hashes, up to SHARED_ADDRESS_MIN). */
  forwarded: Map<string, Peer>;
  visitors: DistinctCount;
  /** Visitors per client address, by the first 32 bits of their id. */
  byAddress: Map<string, Set<number>>;
  pairs: number;
};

const percent = (part: number, whole: number) => Math.round((1000 * Math.min(part, whole)) / whole) / 10;

/**
 * Visitors who share an address, per site, in memory over the last 24 hours (docs/analytics.md):
 * events forwarded by a peer not in `trusted_proxies`, and client addresses many visitors share.
 * Bounded: a flood of addresses cannot grow it. Addresses are never logged, and a client address is
 * read out as its network only (`networkOf`); a forwarding peer is a proxy, named in full.
 */
export class SharedAddressWatch {
  private readonly sites = new Map<string, Hour[]>();
  /** Header values are kept as keyed hashes only (a key of this process): no address in memory as text. */
  private readonly key = randomBytes(32);

  /**
   * Counts one accepted event; `forwarded` is its peer and the header's value when it carried
   * X-Forwarded-For from outside `trusted_proxies`.
   */
  note(site: string, now: number, address: string, visitor: string, forwarded: Forwarded | null): void {
    const hour = this.hourOf(site, now);
    hour.events++;
    hour.visitors.add(visitor);
    const key = Number.parseInt(visitor.slice(0, 8), 16);
    if (forwarded !== null) {
      let peer = hour.forwarded.get(forwarded.peer);
      if (!peer && hour.forwarded.size < MAX_PEERS) {
        peer = { events: 0, values: new Set() };
        hour.forwarded.set(forwarded.peer, peer);
      }
      if (peer) {
        peer.events++;
        // Enough to tell: an hour at the minimum makes the 24 hours reach it.
        if (peer.values.size < SHARED_ADDRESS_MIN) peer.values.add(this.hashOf(forwarded.forwardedFor));
      }
    }
    if (hour.byAddress.get(address)?.has(key)) return;
    if (hour.byAddress.size >= MAX_ADDRESSES || hour.pairs >= MAX_PAIRS) keepBusiest(hour);
    if (hour.pairs >= MAX_PAIRS) return;
    let visitors = hour.byAddress.get(address);
    if (!visitors) {
      visitors = new Set();
      hour.byAddress.set(address, visitors);
    }
    visitors.add(key);
    hour.pairs++;
  }

  private hashOf(value: string): number {
    return createHmac('sha256', this.key).update(value.trim().toLowerCase()).digest().readUInt32BE(0);
  }

  /** Forgets what it saw of `site` (removed: docs/analytics.md "Removing a site"). */
  forget(site: string): void {
    this.sites.delete(site);
  }

  /** What the analytics read says of `site` at `now`; `trusted` says whether a peer is trusted now. */
  of(site: string, now: number, trusted: (peer: string) => boolean): SharedAddress {
    const since = Math.floor(now / HOUR) * HOUR - (WINDOW_HOURS - 1) * HOUR;
    const hours = (this.sites.get(site) ?? []).filter((h) => h.at >= since && h.at <= now);
    let events = 0;
    const visitors = new DistinctCount();
    const byPeer = new Map<string, Peer>();
    const byAddress = new Map<string, Set<number>>();
    for (const hour of hours) {
      events += hour.events;
      visitors.merge(hour.visitors);
      for (const [address, peer] of hour.forwarded) {
        const all = byPeer.get(address);
        if (!all) byPeer.set(address, { events: peer.events, values: new Set(peer.values) });
        else {
          all.events += peer.events;
          for (const value of peer.values) all.values.add(value);
        }
      }
      for (const [address, ids] of hour.byAddress) {
        const all = byAddress.get(address);
        if (all) for (const id of ids) all.add(id);
        else byAddress.set(address, new Set(ids));
      }
    }
    return {
      forwarded: worstPeer(byPeer, events, trusted),
      proxy: busiestAddress(byAddress, visitors.estimate()),
    };
  }

  private hourOf(site: string, now: number): Hour {
    const at = Math.floor(now / HOUR) * HOUR;
    let hours = this.sites.get(site);
    if (!hours) {
      hours = [];
      this.sites.set(site, hours);
    }
    let hour = hours.at(-1);
    if (!hour || hour.at !== at) {
      hour = {
        at,
        events: 0,
        forwarded: new Map(),
        visitors: new DistinctCount(),
        byAddress: new Map(),
        pairs: 0,
      };
      hours.push(hour);
      while (hours.length > 0 && hours[0]!.at <= at - WINDOW_HOURS * HOUR) hours.shift();
    }
    return hour;
  }
}

/**
 * Makes room in a full hour: keeps the busiest addresses while they are at most half of
 * MAX_ADDRESSES and hold at most half of MAX_PAIRS (the busiest always), so that each pruning frees
 * half the room and its sort is paid once per thousand or more new entries. An address dropped had
 * no more visitors than any kept, so at most 1/1,000 of the hour's pairs when full: one that 10% of
 * the visitors share is never near that, and goes on counting however many others come after it.
 * A single address holding every pair fills the hour: it is plainly shared, and counts no further.
 */
function keepBusiest(hour: Hour): void {
  const bySize = [...hour.byAddress].sort((a, b) => b[1].size - a[1].size);
  const kept = new Map<string, Set<number>>();
  let pairs = 0;
  for (const [address, ids] of bySize) {
    if (kept.size > 0 && (kept.size >= MAX_ADDRESSES / 2 || pairs + ids.size > MAX_PAIRS / 2)) break;
    kept.set(address, ids);
    pairs += ids.size;
  }
  hour.byAddress = kept;
  hour.pairs = pairs;
}

/**
 * The peer that forwarded the most events and is still not trusted, with its share of the events:
 * among those that sent at least SHARED_ADDRESS_MIN X-Forwarded-For values, a proxy rather than a
 * person (named in full: a visitor's own address is never shown).
 */
function worstPeer(
  byPeer: Map<string, Peer>,
  events: number,
  trusted: (peer: string) => boolean,
): SharedAddress['forwarded'] {
  let worst: { address: string; n: number } | null = null;
  for (const [address, peer] of byPeer) {
    if (trusted(address) || peer.values.size < SHARED_ADDRESS_MIN) continue;
    const n = peer.events;
    if (!worst || n > worst.n || (n === worst.n && address < worst.address)) worst = { address, n };
  }
  if (!worst || events === 0) return null;
  return { address: worst.address, sharePercent: percent(worst.n, events) };
}

/** The address most visitors share, when they are enough of them and of the site's visitors. */
function busiestAddress(byAddress: Map<string, Set<number>>, siteVisitors: number): SharedAddress['proxy'] {
  let best: { address: string; n: number } | null = null;
  for (const [address, ids] of byAddress) {
    const n = ids.size;
    if (!best || n > best.n || (n === best.n && address < best.address)) best = { address, n };
  }
  if (!best || best.n < SHARED_ADDRESS_MIN) return null;
  // The site's count is an estimate: never below what one address alone shows.
  const total = Math.max(siteVisitors, best.n);
  if ((100 * best.n) / total < PROXY_MIN_PERCENT) return null;
  return { address: networkOf(best.address), visitors: best.n, sharePercent: percent(best.n, total) };
}

/**
 * A visitor's address as its network, so that a read never names one (an office, a home behind a
 * NAT): `203.0.113.0/24` for IPv4, the /48 for IPv6 (`2001:db8:7::/48`).
 */
export function networkOf(address: string): string {
  const bare = address.replace(/%.*$/, '').toLowerCase();
  if (isIP(bare) === 4) return `${bare.split('.').slice(0, 3).join('.')}.0/24`;
  if (isIP(bare) !== 6) return 'an address mon cannot read';
  const [head = '', tail = ''] = bare.split('::');
  // An IPv4 tail (`::ffff:a.b.c.d`) holds two groups.
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g]));
  const first = parse(head);
  const last = parse(tail);
  const groups = [...first, ...Array<string>(8 - first.length - last.length).fill('0'), ...last];
  const network = groups.slice(0, 3).map((g) => Number.parseInt(g, 16).toString(16));
  while (network.length > 0 && network.at(-1) === '0') network.pop();
  return `${network.join(':')}::/48`;
}
