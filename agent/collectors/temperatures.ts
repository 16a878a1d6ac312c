import { join } from 'node:path';
import type { SampleFrame } from '../../protocol/agent.ts';
import { namesIn, readText } from './files.ts';

/**
 * Temperatures of the host's `hwmon` sensors: `<root>/sys/class/hwmon/hwmon*` each have a `name` (the
 * driver: coretemp, k10temp, nvme, acpitz, …) and `temp<N>_input` files in millidegrees Celsius, with an
 * optional `temp<N>_label` ("Package id 0", "Core 1", "Composite"). A chip whose hwmon directory has no
 * `name` (a driver of the old registration) has these files in its `device/` directory instead. A sensor is called
 * `<name> <label>`, or `<name> temp<N>` without a label; when two chips give the same name (two NVMe
 * disks), each is followed by its hwmon directory. A value that cannot be read (a sleeping device) or
 * that no sensor can mean (below −40 °C or above 150 °C: a driver's error code) is left out. All sensors
 * are sent; the server charts the hottest.
 */

type Sensor = { sensor: string; input: string };
export type Temperature = SampleFrame['temperatures'][number];

const MIN_CELSIUS = -40;
const MAX_CELSIUS = 150;
/** The protocol's limit on sensors in a sample. */
const MAX_SENSORS = 256;
/** Which sensors exist is looked up again every this many readings (10 minutes at 15 s): they rarely change. */
const LOOK_AGAIN_EVERY = 40;

async function findSensors(root: string): Promise<Sensor[]> {
  const base = join(root, '/sys/class/hwmon');
  const chips = (await namesIn(base)).filter((name) => /^hwmon\d+$/.test(name)).sort(byNumber);
  const found: Array<Sensor & { chip: string }> = [];
  for (const chip of chips) {
    // Drivers registered the old way (hwmon_device_register) keep their files in the chip's device
    // directory: there when the hwmon directory has no name, as lm-sensors reads them.
    const own = join(base, chip);
    const ownName = await readText(join(own, 'name'));
    const deviceName = ownName === null ? await readText(join(own, 'device', 'name')) : null;
    const dir = deviceName === null ? own : join(own, 'device');
    const name = (ownName ?? deviceName)?.trim() || chip;
    const inputs = (await namesIn(dir)).filter((file) => /^temp\d+_input$/.test(file)).sort(byNumber);
    for (const input of inputs) {
      const index = input.slice(0, -'_input'.length);
      const label = (await readText(join(dir, `${index}_label`)))?.trim() || index;
      found.push({ chip, sensor: `${name} ${label}`, input: join(dir, input) });
    }
  }
  const seen = new Map<string, number>();
  for (const s of found) seen.set(s.sensor, (seen.get(s.sensor) ?? 0) + 1);
  return found.slice(0, MAX_SENSORS).map(({ chip, sensor, input }) => ({
    sensor: ((seen.get(sensor) ?? 0) > 1 ? `${sensor} (${chip})` : sensor).slice(0, 256),
    input,
  }));
}

/** hwmon2 before hwmon10, temp2_input before temp10_input. */
const byNumber = (a: string, b: string) => Number(/\d+/.exec(a)?.[0]) - Number(/\d+/.exec(b)?.[0]);

export function createTemperatureCollector(root: string) {
  let sensors: Sensor[] = [];
  let readings = 0;
  return {
    async read(): Promise<Temperature[]> {
      if (readings++ % LOOK_AGAIN_EVERY === 0) sensors = await findSensors(root);
      const values = await Promise.all(
        sensors.map(async ({ sensor, input }): Promise<Temperature | null> => {
          const text = await readText(input);
          const celsius = text === null || text.trim() === '' ? Number.NaN : Number(text) / 1000;
          return celsius >= MIN_CELSIUS && celsius <= MAX_CELSIUS ? { sensor, celsius } : null;
        }),
      );
      return values.filter((value) => value !== null);
    },
  };
}
