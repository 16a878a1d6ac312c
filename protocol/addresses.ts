/**
 * Link-local and cloud-metadata targets. Cloud metadata services answer on link-local addresses
 * (169.254.169.254, fd00:ec2::254) and hand out the machine's credentials to whoever asks, so checks
 * do not reach them unless they allow it. Private ranges stay allowed: watching internal services is
 * what a monitor does. Pure: the check form, the schema and the runners share it.
 */

/** Host names of metadata services that are not addresses. */
const metadataNames = new Set(['metadata.google.internal']);

/** A host name or address in the form a URL gives it: lower case, IPv4 as dotted quad, IPv6 compressed. */
function canonical(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return null;
  }
}

/** The eight 16-bit groups of a compressed IPv6 address (as `canonical` gives it). */
function groups(v6: string): number[] {
  const [head = '', tail] = v6.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...Array(8 - first.length - last.length).fill(0), ...last];
}

const isLinkLocalV4 = (a: number, b: number) => a === 169 && b === 254;
const linkLocal = 'a link-local address, where cloud metadata services answer';

/**
 * Why `host` (an IP address or a host name, IPv6 with or without brackets) must not be reached without
 * allowing link-local addresses ("a link-local address, …"), or null. IPv4 addresses inside IPv6 (`::ffff:169.254.169.254`, NAT64
 * `64:ff9b::`) count as the IPv4 address they carry.
 */
export function linkLocalReason(host: string): string | null {
  const name = canonical(host);
  if (name === null) return null;
  if (metadataNames.has(name.replace(/\.$/, ''))) return 'the name of a cloud metadata service';
  const v4 = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(name);
  if (v4) return isLinkLocalV4(Number(v4[1]), Number(v4[2])) ? linkLocal : null;
  if (!name.includes(':')) return null;
  const g = groups(name);
  if (g.length !== 8) return null;
  if ((g[0]! & 0xffc0) === 0xfe80) return linkLocal;
  if (g.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':'))
    return 'the address of a cloud metadata service';
  const mapped = g.slice(0, 6).join(':') === '0:0:0:0:0:65535';
  const nat64 = g.slice(0, 6).join(':') === [0x64, 0xff9b, 0, 0, 0, 0].join(':');
  if ((mapped || nat64) && isLinkLocalV4(g[6]! >> 8, g[6]! & 0xff)) return linkLocal;
  return null;
}

/** Why `what` (a host, or a host and its address) is refused; the caller says how to allow it. */
export function linkLocalRefusal(what: string, reason: string): string {
  return `refused ${what}: ${reason}`;
}
