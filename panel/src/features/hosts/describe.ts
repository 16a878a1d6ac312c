import type { AgentCapability } from '../../../../protocol/agent.ts';
import { spanText } from '../../../../protocol/durations.ts';
import { hostLimitMax } from '../../../../protocol/host-limits.ts';
import type { AgentInfo, CheckConflict, HostAlertNow, HostAlerts } from '../../../../protocol/hosts.ts';
import { formatRelative, formatWhen } from '../../lib/format.ts';

/** Words for a host's agent: connected, silent since when, or not connected yet. */
export function agentStateOf(agent: AgentInfo | null): {
  state: 'connected' | 'silent' | 'none';
  label: string;
  detail: string;
} {
  if (!agent) return { state: 'none', label: 'No agent yet', detail: 'its agent has never connected' };
  if (agent.connected)
    return { state: 'connected', label: 'Connected', detail: `last frame ${formatRelative(agent.lastSeen)}` };
  return {
    state: 'silent',
    label: 'Silent',
    detail: `silent since ${formatWhen(agent.lastSeen)} (${formatRelative(agent.lastSeen)})`,
  };
}

/** What each capability of this server lets an agent run (the Record names every one of them). */
const capabilityWords: Record<AgentCapability, string> = {
  ping: 'ping checks',
  headers: 'checks with request headers',
};
// Not `agentCapabilities` itself: protocol/agent.ts brings zod into the panel.
const capabilities = Object.keys(capabilityWords) as AgentCapability[];

/**
 * "Update the agent" when it lacks what this server can give agents (SPEC Check behavior 4): such checks
 * are not given to it, and each says why in its detail. Null when it is current, or never connected.
 */
export function outdatedNote(agent: AgentInfo | null): string | null {
  if (!agent) return null;
  const missing = capabilities.filter((c) => !agent.capabilities.includes(c));
  if (missing.length === 0) return null;
  return `The agent on this host (version ${agent.version}) is too old for ${missing
    .map((c) => capabilityWords[c])
    .join(
      ' and ',
    )}: update it. Until then such checks from this host stay unknown, and their detail says why.`;
}

/** The commands that restart, and so update, an agent of each install (docs/agent.md, "Updating agents"). */
export const RESTART_COMMANDS = {
  systemd: 'systemctl restart mon-agent',
  docker: 'docker restart mon-agent',
} as const;

/**
 * "Update available" when the agent runs another build than the one mon serves (`current: false`),
 * with the versions; null when it runs that one, or mon cannot tell, or it never connected.
 */
export function updateNote(agent: AgentInfo | null): { short: string; detail: string } | null {
  if (agent?.current !== false) return null;
  const served = agent.update ? `; mon serves ${agent.update.version}` : '';
  // A version without a build hash is an agent from before its systemd unit downloaded it at each start.
  const before = agent.version.includes('+')
    ? ''
    : ' If it was installed with systemd before mon updated agents that way, a restart runs the same file: run the install commands again (New token) once.';
  // An agent run from the sources (`node agent/main.ts`) downloads nothing: its checkout updates it.
  const how = agent.version.endsWith('+source')
    ? 'It runs from the sources: update its checkout, or install the agent mon serves.'
    : `Restart it to update it: it downloads the agent mon serves as it starts.${before}`;
  return {
    short: 'Update available',
    detail: `The agent on this host runs version ${agent.version}${served}. ${how}`,
  };
}

/**
 * The host's clock when it runs more than a minute from mon's (`clockOffsetMs`). Behind is measured
 * from the clock the agent sends, so mon corrects its times; ahead may also be an older agent's frames
 * dated more than 5 min ahead, which are skipped. Null when the clock is right or unknown.
 */
export function clockNote(agent: AgentInfo | null): string | null {
  const offset = agent?.clockOffsetMs;
  if (offset === undefined) return null;
  const span = spanText(Math.abs(offset));
  if (offset < 0) {
    return `The clock of this host runs ${span} behind mon's: mon places its samples, runs and log lines on its own clock. Synchronize it (NTP).`;
  }
  return `The clock of this host runs ${span} ahead of mon's: synchronize it (NTP). mon places the times of a current agent on its own clock; an older agent's frames dated more than 5 min ahead are skipped.`;
}

/** Why a command check of the host's checks.toml was not taken (`checkConflicts`). */
export function conflictText(c: CheckConflict): string {
  switch (c.with) {
    case 'file':
      return `${c.name}: a check of mon.toml has this name, so the agent's check is not used. Rename one of them.`;
    case 'panel':
      return `${c.name}: a check made in the panel has this name, so the agent's check is not used. Rename or delete one of them.`;
    case 'host':
      return `${c.name}: the checks.toml of ${c.host ?? 'another host'} declared this name first, so this host's check is not used. Rename one of them.`;
    case 'free':
      return `${c.name}: the name is free again; the check is added when the agent next declares its checks (within an hour, or at its restart).`;
  }
}

/** Host alert metrics in words, for the alerting list. */
export const metricWords: Record<HostAlertNow['metric'], string> = {
  cpu: 'CPU',
  memory: 'Memory',
  swap: 'Swap',
  disk: 'Disk',
  temperature: 'Temperature',
  container: 'Container',
  agent: 'Agent',
};

/** The five thresholds, in the order the form shows them, with their words and unit. */
export const thresholdFields = [
  { key: 'cpu', label: 'CPU', unit: '%', max: hostLimitMax.cpu },
  { key: 'memory', label: 'Memory', unit: '%', max: hostLimitMax.memory },
  { key: 'swap', label: 'Swap', unit: '%', max: hostLimitMax.swap },
  { key: 'disk', label: 'Disk', unit: '%', max: hostLimitMax.disk },
  { key: 'temperature', label: 'Temperature', unit: '°C', max: hostLimitMax.temperature },
] as const satisfies readonly { key: keyof HostAlerts; label: string; unit: string; max: number }[];

/** A threshold in words: "above 90%", or "off". */
export function thresholdText(value: number | null, unit: string): string {
  return value === null ? 'off' : `above ${value}${unit === '%' ? '%' : ` ${unit}`}`;
}

/** `ignoreMounts` as typed: mount paths separated by spaces, commas or new lines. */
export function mountsOf(text: string): string[] {
  const paths = text.split(/[\s,]+/).filter(Boolean);
  return [...new Set(paths.map((p) => p.replaceAll('\\040', ' ')))];
}

/** Mount paths as the form shows them: separated by spaces, a space inside one written `\040`. */
export const mountsText = (mounts: readonly string[]) =>
  mounts.map((m) => m.replaceAll(' ', '\\040')).join(' ');

/** The name a discovered item's service gets by default: a unit's without `.service`. */
export function serviceNameFor(item: { kind: 'container' | 'unit'; name: string }): string {
  return item.kind === 'unit' ? item.name.replace(/\.service$/, '') : item.name;
}
