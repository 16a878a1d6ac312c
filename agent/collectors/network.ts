import { basename, dirname, join } from 'node:path';
import type { SampleFrame } from '../../protocol/agent.ts';
import { exists, linkTarget, readText } from './files.ts';
import { type Counters, createCounterRates } from './rates.ts';

/**
 * Bandwidth: bytes received and sent per second over the host's physical network cards, from
 * `<root>/proc/1/net/dev`, the counters of the host's first process: the host's network namespace, not
 * the agent's (in a container of its own network the agent would see only its own card).
 *
 * Every byte on the wire is counted once, at the card that carried it. A card counts when:
 * - it is not `lo`;
 * - `<root>/sys/class/net/<name>` does not point under `/devices/virtual/`, where the kernel puts every
 *   software link: bridges, bonds, VLANs, tunnels (tun, tap, WireGuard, ipip, gre, sit), veth pairs of
 *   containers, dummy, macvlan;
 * - its `type` is one that carries IP over hardware: 1 (Ethernet and Wi-Fi), 32 (InfiniBand), 519
 *   (raw IP: a modem's `wwan0`) or 65534 (no link layer: modems too; tun and WireGuard are of this type,
 *   and left out by the other rules);
 * - it has no `bridge` or `bonding` directory, no `tun_flags`, no `parent` (an InfiniBand partition of
 *   another card), and its `uevent` names no DEVTYPE of a software link (vlan, bridge, bond, wireguard,
 *   ipip, gre, …). These repeat the rule above for a sysfs whose entries are not links;
 * - its `master` (the card it is enslaved to), if any, is not itself counted: on Azure's accelerated
 *   networking the Hyper-V card `eth0` counts the bytes of the fast-path card under it (`enP…`, a PCI
 *   device whose master is eth0), and a net_failover card those of its two legs. A master that is a
 *   software link (a bond, a bridge) does not count, so its members do.
 * A bond's traffic is counted at its member cards (eth1 and eth2 under bond0), which are physical, and
 * not at the bond, which only adds them up; a bridge's at the cards attached to it, likewise. A host
 * with no physical card (or no sysfs under the root) has null bandwidth rather than a false zero.
 *
 * `/sys/class/net` lists the network namespace of whoever mounted that sysfs. `<root>/sys` is the host's
 * own (the host's root is mounted into the agent's container), and the install runs the container with
 * the host's network besides, so the agent's namespace and the host's are the same one.
 */

const softwareTypes = new Set([
  'vlan',
  'bridge',
  'bond',
  'wireguard',
  'ipip',
  'gre',
  'gretap',
  'ip6gre',
  'ip6tnl',
  'sit',
  'vti',
  'vxlan',
  'geneve',
  'tun',
  'tap',
  'veth',
  'macvlan',
  'ipvlan',
  'dummy',
]);

/** ARPHRD_ETHER, ARPHRD_INFINIBAND, ARPHRD_RAWIP, ARPHRD_NONE. */
const hardwareTypes = new Set(['1', '32', '519', '65534']);

/**
 * Whether the card named `name` is a physical one, by the rules above (`dir` is its sysfs directory,
 * `<sys>/class/net/<name>`, whose siblings are the other cards).
 */
export async function isPhysicalCard(name: string, dir: string, depth = 0): Promise<boolean> {
  if (name === 'lo') return false;
  const link = await linkTarget(dir);
  if (link?.includes('/devices/virtual/')) return false;
  const type = (await readText(join(dir, 'type')))?.trim();
  if (type === undefined || !hardwareTypes.has(type)) return false;
  for (const marker of ['bridge', 'bonding', 'tun_flags', 'parent'])
    if (await exists(join(dir, marker))) return false;
  const devtype = /^DEVTYPE=(.*)$/m.exec((await readText(join(dir, 'uevent'))) ?? '')?.[1]?.trim();
  if (devtype && softwareTypes.has(devtype)) return false;
  // The kernel allows no loops of masters; the depth bounds a sysfs that is not the kernel's.
  const master = await linkTarget(join(dir, 'master'));
  if (master === null || depth >= 4) return true;
  const masterName = basename(master);
  return !(await isPhysicalCard(masterName, join(dirname(dir), masterName), depth + 1));
}

/** `now`: a monotonic clock in ms (rates.ts). */
export function createNetworkCollector(root: string, now?: () => number) {
  const rates = createCounterRates(
    join(root, '/proc/1/net/dev'),
    parseNetDev,
    (name) => isPhysicalCard(name, join(root, '/sys/class/net', name)),
    now,
  );
  return {
    async read(): Promise<SampleFrame['net']> {
      const bytes = await rates();
      return bytes && { rxBps: bytes.a, txBps: bytes.b };
    },
  };
}

/**
 * Each interface's bytes received and sent. After two header lines, `name: rx-bytes rx-packets errs
 * drop fifo frame compressed multicast tx-bytes …`.
 */
export function parseNetDev(text: string): Map<string, Counters> {
  const rows = new Map<string, Counters>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const fields = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/);
    const received = Number(fields[0]);
    const sent = Number(fields[8]);
    if (fields.length >= 9 && Number.isFinite(received) && Number.isFinite(sent))
      rows.set(line.slice(0, colon).trim(), { a: received, b: sent });
  }
  return rows;
}
