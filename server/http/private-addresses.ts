import { isIP } from 'node:net';

/**
 * Addresses that notifications and the watchdog do not reach unless a channel allows private
 * addresses: a message sent there would reach the machine mon runs on or its network, not the
 * service the user meant (SSRF). Pure, for `outbound.ts` and its tests.
 */

type Range = { bits: number; prefix: number; why: string };

const v4Ranges: { net: string; prefix: number; why: string }[] = [
  { net: '0.0.0.0', prefix: 8, why: 'an unspecified address' },
  { net: '10.0.0.0', prefix: 8, why: 'a private address' },
  { net: '100.64.0.0', prefix: 10, why: 'a carrier-grade NAT address' },
  { net: '127.0.0.0', prefix: 8, why: 'a loopback address' },
  { net: '169.254.0.0', prefix: 16, why: 'a link-local address' },
  { net: '172.16.0.0', prefix: 12, why: 'a private address' },
  { net: '192.0.0.0', prefix: 24, why: 'a reserved address' },
  // Documentation ranges are not on the internet: whatever answers there is a local network.
  { net: '192.0.2.0', prefix: 24, why: 'a documentation address' },
  { net: '192.168.0.0', prefix: 16, why: 'a private address' },
  { net: '198.18.0.0', prefix: 15, why: 'a benchmarking address' },
  { net: '198.51.100.0', prefix: 24, why: 'a documentation address' },
  { net: '203.0.113.0', prefix: 24, why: 'a documentation address' },
  { net: '224.0.0.0', prefix: 4, why: 'a multicast address' },
  { net: '240.0.0.0', prefix: 4, why: 'a reserved address' },
];

const v4 = (address: string) => address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
const compiledV4: Range[] = v4Ranges.map((r) => ({ bits: v4(r.net), prefix: r.prefix, why: r.why }));

function v4Reason(address: string): string | null {
  const n = v4(address);
  for (const r of compiledV4) {
    const size = 2 ** (32 - r.prefix);
    if (Math.floor(n / size) === Math.floor(r.bits / size)) return r.why;
  }
  return null;
}

/** The eight 16-bit groups of an IPv6 address (any textual form, with an IPv4 tail or a zone). */
function groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4(tail[1]!);
    text = `${text.slice(0, -tail[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const first = parse(head);
  const last = rest === undefined ? [] : parse(rest);
  const all = [...first, ...Array(Math.max(0, 8 - first.length - last.length)).fill(0), ...last];
  return all.length === 8 && all.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? all : null;
}

function v6Reason(address: string): string | null {
  const g = groups(address);
  if (!g) return 'an address mon cannot read';
  const embedded = () => `${g[6]! >> 8}.${g[6]! & 0xff}.${g[7]! >> 8}.${g[7]! & 0xff}`;
  if (g.every((x) => x === 0)) return 'an unspecified address';
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) carry an IPv4 address.
  const mapped = g.slice(0, 5).every((x) => x === 0) && (g[5] === 0xffff || g[5] === 0);
  const nat64 = g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0);
  if (mapped || nat64) return v4Reason(embedded());
  // The local-use NAT64 prefix (64:ff9b:1::/48) translates to addresses of the local network.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'a private address';
  if ((g[0]! & 0xfe00) === 0xfc00) return 'a private address';
  if (g[0] === 0x2001 && g[1] === 0xdb8) return 'a documentation address';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((g[0]! & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((g[0]! & 0xff00) === 0xff00) return 'a multicast address';
  // 6to4 (2002:a.b.c.d::) reaches the IPv4 address it carries.
  if (g[0] === 0x2002) return v4Reason(`${g[1]! >> 8}.${g[1]! & 0xff}.${g[2]! >> 8}.${g[2]! & 0xff}`);
  return null;
}

/**
 * Why `address` (an IP address) is not a public one: "a loopback address", "a private address",
 * "a carrier-grade NAT address", "a link-local address", "a multicast address"...; null for a public
 * address. Something that is not an IP address is refused too.
 */
export function privateReason(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare.replace(/%.*$/, ''));
  if (family === 4) return v4Reason(bare);
  if (family === 6) return v6Reason(bare);
  return 'not an IP address';
}
