import assert from 'node:assert/strict';
import { mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { copyOfFixture, fixtureRoot } from './fixtures/tree.ts';
import { createTemperatureCollector } from './temperatures.ts';

const removals: Array<() => Promise<void>> = [];
after(() => Promise.all(removals.map((remove) => remove())));

const modernSensors = [
  // acpitz temp2 (−273.2 °C, a driver's error value) is left out.
  { sensor: 'acpitz temp1', celsius: 27.8 },
  // Two NVMe disks both call their sensor "Composite": each is followed by its hwmon.
  { sensor: 'nvme Composite (hwmon1)', celsius: 38.85 },
  { sensor: 'nvme Sensor 1', celsius: 41.85 },
  { sensor: 'nvme temp3', celsius: 36.85 },
  { sensor: 'coretemp Package id 0', celsius: 54 },
  { sensor: 'coretemp Core 0', celsius: 51 },
  { sensor: 'coretemp Core 1', celsius: 57 },
  { sensor: 'nvme Composite (hwmon3)', celsius: 44.85 },
];

test('every hwmon sensor, named by chip and label, in degrees Celsius', async () => {
  assert.deepEqual(await createTemperatureCollector(fixtureRoot('modern')).read(), modernSensors);
});

test('values that cannot be read or make no sense are left out; the others stay', async () => {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  const coretemp = join(copy.root, '/sys/devices/platform/coretemp.0/hwmon/hwmon2');
  const temperatures = createTemperatureCollector(copy.root);
  await temperatures.read();
  // A read error (here: the input is a directory), an empty value, a value above 150 °C.
  await rm(join(coretemp, 'temp1_input'));
  await mkdir(join(coretemp, 'temp1_input'));
  await copy.write('/sys/devices/platform/coretemp.0/hwmon/hwmon2/temp2_input', '\n');
  await copy.write(
    '/sys/devices/pci0000:00/0000:00:1d.0/0000:3d:00.0/nvme/nvme0/hwmon1/temp1_input',
    '200000\n',
  );
  await copy.write('/sys/devices/platform/coretemp.0/hwmon/hwmon2/temp3_input', '-39000\n');
  const names = (await temperatures.read()).map((t) => `${t.sensor}=${t.celsius}`);
  assert.deepEqual(names, [
    'acpitz temp1=27.8',
    'nvme Sensor 1=41.85',
    'nvme temp3=36.85',
    'coretemp Core 1=-39',
    'nvme Composite (hwmon3)=44.85',
  ]);
});

test('a host without hwmon has no temperatures', async () => {
  assert.deepEqual(await createTemperatureCollector(fixtureRoot('old-kernel')).read(), []);
  assert.deepEqual(await createTemperatureCollector('/nonexistent-host-root').read(), []);
});

test('a sensor that appears is found within ten minutes of readings', async () => {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  const temperatures = createTemperatureCollector(copy.root);
  assert.equal((await temperatures.read()).length, modernSensors.length);
  await copy.write('/sys/class/hwmon/hwmon4/name', 'k10temp\n');
  await copy.write('/sys/class/hwmon/hwmon4/temp1_input', '61250\n');
  await copy.write('/sys/class/hwmon/hwmon4/temp1_label', 'Tctl\n');
  // 40 readings at 15 s: the layout is looked up again at the 41st.
  for (let i = 1; i < 40; i++) assert.equal((await temperatures.read()).length, modernSensors.length);
  assert.deepEqual((await temperatures.read()).at(-1), { sensor: 'k10temp Tctl', celsius: 61.25 });
});

test('a chip of an old driver, whose name and inputs are in its device directory, is read there', async () => {
  const copy = await copyOfFixture('modern');
  removals.push(copy.remove);
  // hwmon_device_register(): /sys/class/hwmon/hwmon4 holds only the link to its device and uevent;
  // name and temp*_input are the device's (a Super I/O chip here).
  const chip = '/sys/devices/platform/w83627ehf.656';
  await copy.write(`${chip}/name`, 'w83627ehf\n');
  await copy.write(`${chip}/temp1_input`, '45000\n');
  await copy.write(`${chip}/temp1_label`, 'SYSTIN\n');
  await copy.write(`${chip}/temp2_input`, '52500\n');
  await copy.write(`${chip}/hwmon/hwmon4/uevent`, '');
  await symlink('../../../w83627ehf.656', join(copy.root, chip, 'hwmon/hwmon4/device'));
  await symlink(
    '../../devices/platform/w83627ehf.656/hwmon/hwmon4',
    join(copy.root, '/sys/class/hwmon/hwmon4'),
  );
  assert.deepEqual((await createTemperatureCollector(copy.root).read()).slice(modernSensors.length), [
    { sensor: 'w83627ehf SYSTIN', celsius: 45 },
    { sensor: 'w83627ehf temp2', celsius: 52.5 },
  ]);
});
