import { z } from 'zod';
import { nameSchema } from '../../protocol/check.ts';
import { type HostLimit, hostLimits } from '../../protocol/host-limits.ts';
import {
  type HostAlerts,
  hostLimitSchema,
  hostLimitShape,
  hostLimitWords,
  ignoreMountsSchema,
} from '../../protocol/hosts.ts';
import { type Built, configSection, type TomlTable } from '../config/section.ts';

/**
 * The `[[host]]` section of mon.toml: alert thresholds of one host.
 *
 *   [[host]]
 *   name = "web-1"
 *   cpu = 95                 # a number sets the limit
 *   swap = false             # false turns the alert off, true keeps the default
 *   ignore_mounts = ["/boot"]
 */

/** Host alert thresholds (percent, or degrees Celsius for temperature); null turns an alert off. */
export type { HostAlerts };

/** Thresholds of a host without a `[[host]]` table, and of keys a `[[host]]` leaves out. */
export const defaultHostAlerts: HostAlerts = {
  cpu: 90,
  memory: 90,
  swap: 80,
  disk: 90,
  temperature: 85,
  ignoreMounts: [],
};

export type FileHost = { name: string; alerts: HostAlerts };

/** A threshold: a number in range, `false` to turn the alert off, or `true` for the default. */
const threshold = (key: HostLimit) =>
  z.union([z.boolean(), hostLimitSchema(key, 'false')], { error: hostLimitWords(key, 'false') }).optional();

const fileHostSchema = z.strictObject({
  name: nameSchema,
  ...hostLimitShape(threshold),
  ignore_mounts: ignoreMountsSchema.default([]),
});

function thresholdValue(value: number | boolean | undefined, fallback: number | null): number | null {
  if (value === undefined || value === true) return fallback;
  return value === false ? null : value;
}

export const hostSection = configSection({
  key: 'hosts',
  tables: { host: z.array(fileHostSchema).default([]) },
  build: (input): Built<FileHost[]> => ({
    value: input.host.map((h) => ({
      name: h.name,
      alerts: {
        cpu: thresholdValue(h.cpu, defaultHostAlerts.cpu),
        memory: thresholdValue(h.memory, defaultHostAlerts.memory),
        swap: thresholdValue(h.swap, defaultHostAlerts.swap),
        disk: thresholdValue(h.disk, defaultHostAlerts.disk),
        temperature: thresholdValue(h.temperature, defaultHostAlerts.temperature),
        ignoreMounts: h.ignore_mounts,
      },
    })),
    errors: [],
  }),
  empty: (): FileHost[] => [],
  toToml(value, { stored, hosts }) {
    const named = new Set(value.map((h) => h.name));
    // A check may run from a host added through the API or by its agent, which the file does not
    // name: the export names it, with the thresholds set through the API, or a new server would refuse
    // the check's `from` (it knows no host yet).
    const apiAlerts = new Map(hosts.map((h) => [h.name, h.alerts]));
    const runFrom = [...new Set(stored.flatMap((c) => (c.body.from ? [c.body.from] : [])))]
      .filter((name) => !named.has(name))
      .sort();
    if (value.length === 0 && runFrom.length === 0) return {};
    const table = (name: string, alerts: HostAlerts): TomlTable => {
      const out: TomlTable = { name };
      for (const key of hostLimits) {
        const v = alerts[key];
        if (v !== defaultHostAlerts[key]) out[key] = v ?? false;
      }
      if (alerts.ignoreMounts.length > 0) out.ignore_mounts = [...alerts.ignoreMounts];
      return out;
    };
    return {
      host: [
        ...value.map((h) => table(h.name, h.alerts)),
        ...runFrom.map((name) => table(name, apiAlerts.get(name) ?? defaultHostAlerts)),
      ],
    };
  },
  names: (value) => ({ hosts: value.map((h) => h.name) }),
});
