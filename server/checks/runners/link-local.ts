import dns, { type LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { linkLocalReason, linkLocalRefusal } from '../../../protocol/addresses.ts';

/**
 * Runs do not connect to link-local and cloud-metadata addresses unless their check allows it
 * (protocol/addresses.ts says which). The address checked is the one the connection goes to: the name
 * is looked up once, by the lookup function the socket itself calls, so a name that answers a harmless
 * address to one lookup and a metadata address to the next (DNS rebinding) cannot get past it.
 */

const notAllowed = 'the check does not allow link-local addresses';

/** A connection refused by this rule; its message is the run's detail. */
export class RefusedTarget extends Error {
  readonly code = 'ELINKLOCAL';
}

/** The refusal of `host` as written (an address, or a metadata service's name), or null. */
export function refusedHost(host: string, allowLinkLocal: boolean): RefusedTarget | null {
  if (allowLinkLocal) return null;
  const reason = linkLocalReason(host);
  return reason ? new RefusedTarget(`${linkLocalRefusal(host, reason)}; ${notAllowed}`) : null;
}

/** Addresses of `host`: the system's resolution (as `ping` or `curl` would get), or `dnsServers`'. */
async function resolve(
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

/** The refusal of a name that resolved to `addresses`, or null. */
function refusedAddresses(host: string, addresses: LookupAddress[]): RefusedTarget | null {
  const named = refusedHost(host, false);
  if (named) return named;
  for (const { address } of addresses) {
    const reason = linkLocalReason(address);
    if (reason)
      return new RefusedTarget(`${linkLocalRefusal(`${host} (${address})`, reason)}; ${notAllowed}`);
  }
  return null;
}

/**
 * The lookup function of a check's sockets (net, http, tls): resolves like the system, or with
 * `dnsServers`, and fails with a RefusedTarget when the check does not allow link-local addresses and
 * any address of the name is one (a name that also has a good address is refused all the same).
 */
export function guardedLookup(allowLinkLocal: boolean, dnsServers: string[] | undefined): LookupFunction {
  return (host, options, callback) => {
    const family =
      options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    resolve(host, family, dnsServers, options.hints).then(
      (addresses) => {
        const refused = allowLinkLocal ? null : refusedAddresses(host, addresses);
        if (refused) return callback(refused, '', 0);
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** The one address a run connects to for `host` (an address or a name), refused as above: for ping. */
export async function addressToReach(
  host: string,
  allowLinkLocal: boolean,
  dnsServers: string[] | undefined,
): Promise<string> {
  const refused = refusedHost(host, allowLinkLocal);
  if (refused) throw refused;
  if (isIP(host)) return host;
  const addresses = await resolve(host, 0, dnsServers);
  const refusedName = allowLinkLocal ? null : refusedAddresses(host, addresses);
  if (refusedName) throw refusedName;
  return addresses[0]!.address;
}
