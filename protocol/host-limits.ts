/**
 * The range of each host alert threshold, for the API body (protocol/hosts.ts), mon.toml's `[[host]]`
 * (server/hosts/config.ts) and the panel's form. Apart from hosts.ts because the panel loads it at run
 * time and nothing here needs the schema library.
 */

/** The highest value of each threshold (percent; degrees Celsius for temperature); the lowest is 1. */
export const hostLimitMax = { cpu: 100, memory: 100, swap: 100, disk: 100, temperature: 150 } as const;
export type HostLimit = keyof typeof hostLimitMax;
export const hostLimits = Object.keys(hostLimitMax) as HostLimit[];

/** How many mount points one host's disk alert can leave out. */
export const MAX_IGNORED_MOUNTS = 100;
