import { BlockList, isIP } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** `::ffff:10.0.0.1` → `10.0.0.1`, so IPv4 peers on a dual-stack socket match IPv4 entries. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return (mapped ? mapped[1]! : address).toLowerCase();
}

/** Parses one `trusted_proxies` entry: an address or a CIDR range, IPv4 or IPv6. Returns null when invalid. */
export function parseProxyEntry(entry: string): { address: string; prefix: number; family: 4 | 6 } | null {
  const [raw, prefixText, extra] = entry.trim().split('/');
  if (extra !== undefined || !raw) return null;
  const address = normalizeAddress(raw);
  const family = isIP(address);
  if (family !== 4 && family !== 6) return null;
  const max = family === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  return prefix <= max ? { address, prefix, family } : null;
}

/** A matcher over `trusted_proxies`; invalid entries match nothing (the config loader reports them). */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  constructor(entries: readonly string[]) {
    let count = 0;
    for (const entry of entries) {
      const parsed = parseProxyEntry(entry);
      if (!parsed) continue;
      const type = parsed.family === 4 ? 'ipv4' : 'ipv6';
      this.list.addSubnet(parsed.address, parsed.prefix, type);
      count++;
    }
    this.empty = count === 0;
  }

  has(address: string | undefined): boolean {
    if (!address || this.empty) return false;
    const a = normalizeAddress(address);
    const family = isIP(a);
    if (family === 0) return false;
    return this.list.check(a, family === 4 ? 'ipv4' : 'ipv6');
  }
}

const cache = new WeakMap<readonly string[], TrustedProxies>();

/** The matcher for a config's list, built once per loaded list. */
export function trustedProxies(entries: readonly string[]): TrustedProxies {
  let matcher = cache.get(entries);
  if (!matcher) {
    matcher = new TrustedProxies(entries);
    cache.set(entries, matcher);
  }
  return matcher;
}

/** The socket peer's address. */
export function peerAddress(request: FastifyRequest): string {
  return normalizeAddress(request.socket.remoteAddress ?? '');
}

/**
 * The client's address: `X-Forwarded-For` is read only when the peer is a trusted proxy. Walking the
 * list from the right, trusted proxies are skipped; the first untrusted address is the client.
 */
export function clientAddress(request: FastifyRequest, proxies: TrustedProxies): string {
  const peer = peerAddress(request);
  if (!proxies.has(peer)) return peer;
  const header = request.headers['x-forwarded-for'];
  const text = Array.isArray(header) ? header.join(',') : header;
  if (!text) return peer;
  const hops = text
    .split(',')
    .map((s) => normalizeAddress(s.trim()))
    .filter((s) => isIP(s) !== 0);
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!proxies.has(hop)) return hop;
  }
  return hops[0] ?? peer;
}

/**
 * The key a per-client rate limit counts under: the address itself for IPv4, its /64 network for
 * IPv6 (one host usually holds a whole /64, so per-address buckets would not limit it).
 */
export function rateKey(address: string): string {
  const a = normalizeAddress(address).split('%')[0]!;
  if (isIP(a) !== 6 || a.includes('.')) return a;
  const double = a.indexOf('::');
  const groups =
    double === -1
      ? a.split(':')
      : (() => {
          const head = a.slice(0, double).split(':').filter(Boolean);
          const tail = a
            .slice(double + 2)
            .split(':')
            .filter(Boolean);
          return [...head, ...Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
        })();
  return `${groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
