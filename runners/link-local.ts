import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { linkLocalReason, linkLocalRefusal } from '../protocol/addresses.ts';
import { lookupRefusing, resolve } from './lookup.ts';

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
  return lookupRefusing(dnsServers, allowLinkLocal ? null : refusedAddresses);
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
