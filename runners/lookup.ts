import dns, { type LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';

/**
 * Name resolution of the connections mon makes itself: check runs, notifications, the watchdog. The
 * address checked must be the address connected to, so a guarded lookup is the lookup function of the
 * socket: the name is resolved once, when the socket connects, and the answer is refused before any
 * connection. Checking a name in a lookup of its own and connecting after would let a name answer a
 * harmless address to the check and another to the connection (DNS rebinding).
 */

/** Addresses of `host`: the system's resolution (as `ping` or `curl` would get), or `dnsServers`'. */
export async function resolve(
  host: string,
  family: number,
  dnsServers: string[] | undefined,
  hints = 0,
): Promise<LookupAddress[]> {
  if (!dnsServers?.length) return dns.promises.lookup(host, { all: true, family, hints });
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  resolver.setServers(dnsServers);
  const [v4, v6] = await Promise.all([
    family === 6 ? [] : resolver.resolve4(host).catch(() => []),
    family === 4 ? [] : resolver.resolve6(host).catch(() => []),
  ]);
  const addresses = [
    ...v4.map((address) => ({ address, family: 4 })),
    ...v6.map((address) => ({ address, family: 6 })),
  ];
  if (addresses.length === 0)
    throw Object.assign(new Error(`host not found: ${host}`), { code: 'ENOTFOUND', hostname: host });
  return addresses;
}

/** Why the answer for `host` may not be connected to (an error to fail the connection with), or null. */
export type Refusal = (host: string, addresses: LookupAddress[]) => Error | null;

/**
 * A socket's lookup function (net, http, tls): resolves like `resolve` and fails the connection with
 * `refuse`'s error when it refuses the answer. Without `refuse` every answer is taken.
 */
export function lookupRefusing(dnsServers: string[] | undefined, refuse: Refusal | null): LookupFunction {
  return (host, options, callback) => {
    const family =
      options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    resolve(host, family, dnsServers, options.hints).then(
      (addresses) => {
        const refused = refuse?.(host, addresses);
        if (refused) return callback(refused, '', 0);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}
