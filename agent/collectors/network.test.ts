import assert from 'node:assert/strict';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { copyOfFixture, fixtureRoot, netDevText, scratchRoot } from './fixtures/tree.ts';
import { createNetworkCollector, isPhysicalCard, parseNetDev } from './network.ts';

const removals: Array<() => Promise<void>> = [];
after(() => Promise.all(removals.map((remove) => remove())));

type Row = [name: string, rx: number, tx: number];
/** The modern fixture's counters 15 s later. bond0 is eth1 + eth2, as the kernel counts it. */
const laterRows: Row[] = [
  ['lo', 9000000 + 5000000, 9000000 + 5000000],
  ['eth0', 10000000 + 1500000, 2000000 + 300000],
  ['enp3s0', 5000000 + 150000, 1000000 + 75000],
  ['eth1', 3000000 + 600000, 700000 + 150000],
  ['eth2', 2000000 + 300000, 300000 + 75000],
  ['bond0', 5000000 + 900000, 1000000 + 225000],
  ['docker0', 800000 + 2000000, 900000 + 2000000],
  ['br0', 4000000 + 1000000, 500000 + 1000000],
  ['eth0.100', 1000000 + 700000, 200000 + 100000],
  ['wg0', 700000 + 400000, 600000 + 400000],
  ['tun0', 300000 + 100000, 200000 + 100000],
  ['veth1234', 900000 + 2000000, 800000 + 2000000],
];

async function modernCopy() {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  return copy;
}

/** The collector on a monotonic clock the test sets: `read(ms)` reads at `ms` of it. */
function networkAt(root: string) {
  let now = 0;
  const collector = createNetworkCollector(root, () => now);
  return {
    read: (ms: number) => {
      now = ms;
      return collector.read();
    },
  };
}

test('bytes per second over the physical cards only, bond members once; the first reading is null', async () => {
  const copy = await modernCopy();
  const net = networkAt(copy.root);
  assert.equal(await net.read(1_000_000), null);
  await copy.write('/proc/1/net/dev', netDevText(laterRows));
  // eth0 + enp3s0 + eth1 + eth2: received (1500000 + 150000 + 600000 + 300000) / 15 s, sent
  // (300000 + 75000 + 150000 + 75000) / 15 s. bond0 (the same bytes again), lo, the bridges, the VLAN,
  // the tunnels and the veth would each add their own.
  assert.deepEqual(await net.read(1_015_000), { rxBps: 170000, txBps: 40000 });
});

test('which interfaces of the modern host are physical cards', async () => {
  const root = fixtureRoot('modern');
  const names = [...parseNetDev(netDevText(laterRows)).keys()];
  const physical: string[] = [];
  for (const name of names)
    if (await isPhysicalCard(name, join(root, '/sys/class/net', name))) physical.push(name);
  assert.deepEqual(physical, ['eth0', 'enp3s0', 'eth1', 'eth2']);
});

test('each rule alone leaves a card out, for a sysfs whose entries are plain directories', async () => {
  const scratch = await scratchRoot();
  removals.push(scratch.remove);
  /** A card directory of type 1 with one more file; `null` for none. */
  const card = async (name: string, extra: [file: string, text: string] | null, type = '1') => {
    const dir = join(scratch.root, name);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'type'), `${type}\n`);
    await writeFile(join(dir, 'uevent'), `INTERFACE=${name}\nIFINDEX=3\n`);
    if (extra) {
      await mkdir(join(dir, extra[0], '..'), { recursive: true });
      await writeFile(join(dir, extra[0]), extra[1]);
    }
    return isPhysicalCard(name, dir);
  };
  assert.equal(await card('eth0', null), true);
  assert.equal(await card('br1', ['bridge/bridge_id', '8000.0242ac110001\n']), false);
  assert.equal(await card('bond1', ['bonding/slaves', 'eth3 eth4\n']), false);
  assert.equal(await card('tap0', ['tun_flags', '0x1002\n']), false);
  assert.equal(await card('vlan7', ['uevent', 'DEVTYPE=vlan\nINTERFACE=vlan7\nIFINDEX=9\n']), false);
  assert.equal(await card('wg1', ['uevent', 'DEVTYPE=wireguard\nINTERFACE=wg1\nIFINDEX=9\n']), false);
  assert.equal(await card('gre1', null, '778'), false);
  // InfiniBand and modems in raw-IP mode carry IP too; an InfiniBand partition counts at its card.
  assert.equal(await card('ib0', null, '32'), true);
  assert.equal(await card('ib0.8001', ['parent', 'ib0\n'], '32'), false);
  assert.equal(await card('wwan0', null, '519'), true);
  assert.equal(await card('wwan1', null, '65534'), true);
  assert.equal(await card('tun1', ['tun_flags', '0x1001\n'], '65534'), false);
  assert.equal(
    await card('wg2', ['uevent', 'DEVTYPE=wireguard\nINTERFACE=wg2\nIFINDEX=9\n'], '65534'),
    false,
  );
  assert.equal(await card('can0', null, '280'), false);
  assert.equal(await card('wlan0', ['uevent', 'DEVTYPE=wlan\nINTERFACE=wlan0\nIFINDEX=4\n']), true);
  assert.equal(await card('lo', null), false);
  assert.equal(await isPhysicalCard('gone0', join(scratch.root, 'gone0')), false, 'no sysfs entry');
  // A link into /devices/virtual/ is enough, whatever the files say.
  await mkdir(join(scratch.root, 'devices/virtual/net/veth9'), { recursive: true });
  await writeFile(join(scratch.root, 'devices/virtual/net/veth9/type'), '1\n');
  await mkdir(join(scratch.root, 'class/net'), { recursive: true });
  await symlink('../../devices/virtual/net/veth9', join(scratch.root, 'class/net/veth9'));
  assert.equal(await isPhysicalCard('veth9', join(scratch.root, 'class/net/veth9')), false);
});

test('a card whose counters went back is left out of that interval only', async () => {
  const copy = await modernCopy();
  const net = networkAt(copy.root);
  await net.read(0);
  const reset = laterRows.map((row): Row => (row[0] === 'eth0' ? ['eth0', 1000, 100] : row));
  await copy.write('/proc/1/net/dev', netDevText(reset));
  // enp3s0 + eth1 + eth2 only.
  assert.deepEqual(await net.read(15_000), { rxBps: 70000, txBps: 20000 });
  const recovered = reset.map((row): Row => (row[0] === 'eth0' ? ['eth0', 1000 + 30000, 100 + 15000] : row));
  await copy.write('/proc/1/net/dev', netDevText(recovered));
  // Only eth0 moved since: +30000 and +15000 over 15 s.
  assert.deepEqual(await net.read(30_000), { rxBps: 2000, txBps: 1000 });
});

test('two readings at the same time give null, not an infinite rate', async () => {
  const net = networkAt(fixtureRoot('modern'));
  await net.read(5000);
  assert.equal(await net.read(5000), null);
});

test('no network counters or no sysfs under the root: null', async () => {
  const missing = networkAt('/nonexistent-host-root');
  assert.equal(await missing.read(0), null);
  assert.equal(await missing.read(15_000), null);
  const copy = await copyOfFixture('old-kernel');
  removals.push(copy.remove);
  await copy.write('/proc/1/net/dev', netDevText([['eth0', 1, 1]]));
  const withoutSysfs = networkAt(copy.root);
  assert.equal(await withoutSysfs.read(0), null);
  await copy.write('/proc/1/net/dev', netDevText([['eth0', 15001, 15001]]));
  assert.equal(await withoutSysfs.read(15_000), null);
});

test('Azure accelerated networking: the fast-path card under the Hyper-V card is not counted again', async () => {
  const copy = await copyOfFixture('azure');
  removals.push(copy.remove);
  const net = networkAt(copy.root);
  assert.equal(await net.read(0), null);
  // 1.5 MB in and 3 MB out over 15 s, nearly all through the VF: netvsc's eth0 counts it too.
  await copy.write(
    '/proc/1/net/dev',
    netDevText([
      ['lo', 1000, 1000],
      ['eth0', 1000000 + 1500000, 2000000 + 3000000],
      ['enP30832s1', 990000 + 1485000, 1980000 + 2970000],
    ]),
  );
  assert.deepEqual(await net.read(15_000), { rxBps: 100000, txBps: 200000 });
  const root = fixtureRoot('azure');
  assert.equal(await isPhysicalCard('eth0', join(root, '/sys/class/net/eth0')), true);
  assert.equal(await isPhysicalCard('enP30832s1', join(root, '/sys/class/net/enP30832s1')), false);
});

test('a card whose master is a software link still counts (bond and bridge members); one whose master is counted does not', async () => {
  const scratch = await scratchRoot();
  removals.push(scratch.remove);
  const net = join(scratch.root, 'class/net');
  const device = async (path: string, type = '1') => {
    await mkdir(join(scratch.root, path), { recursive: true });
    await writeFile(join(scratch.root, path, 'type'), `${type}\n`);
    await writeFile(join(scratch.root, path, 'uevent'), 'IFINDEX=2\n');
  };
  await mkdir(net, { recursive: true });
  // virtio's net_failover: the failover card and its two legs, all on the one PCI device.
  await device('devices/pci0000:00/0000:00:03.0/virtio0/net/eth0');
  await device('devices/pci0000:00/0000:00:03.0/virtio0/net/eth0nsby');
  await device('devices/pci0000:00/0000:00:0a.0/net/ens10');
  await device('devices/virtual/net/br0');
  await device('devices/pci0000:00/0000:00:0b.0/net/enp0s11');
  for (const [name, path] of [
    ['eth0', 'pci0000:00/0000:00:03.0/virtio0/net/eth0'],
    ['eth0nsby', 'pci0000:00/0000:00:03.0/virtio0/net/eth0nsby'],
    ['ens10', 'pci0000:00/0000:00:0a.0/net/ens10'],
    ['br0', 'virtual/net/br0'],
    ['enp0s11', 'pci0000:00/0000:00:0b.0/net/enp0s11'],
  ])
    await symlink(`../../devices/${path}`, join(net, name!));
  await symlink('../eth0', join(scratch.root, 'devices/pci0000:00/0000:00:03.0/virtio0/net/eth0nsby/master'));
  await symlink(
    '../../../0000:00:03.0/virtio0/net/eth0',
    join(scratch.root, 'devices/pci0000:00/0000:00:0a.0/net/ens10/master'),
  );
  await symlink(
    '../../../../virtual/net/br0',
    join(scratch.root, 'devices/pci0000:00/0000:00:0b.0/net/enp0s11/master'),
  );
  const counted: string[] = [];
  for (const name of ['eth0', 'eth0nsby', 'ens10', 'br0', 'enp0s11'])
    if (await isPhysicalCard(name, join(net, name))) counted.push(name);
  assert.deepEqual(counted, ['eth0', 'enp0s11']);
});
