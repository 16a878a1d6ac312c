import { createHash } from 'node:crypto';
import {
  AGENT_PROTOCOL,
  type AgentCapability,
  type AssignedCheck,
  type PollAnswer,
  SAMPLE_EVERY_MS,
} from '../../protocol/agent.ts';
import type { CheckDefinition } from '../../protocol/check.ts';
import { referencedNames } from '../../protocol/env-refs.ts';
import type { CheckEngine, Entry } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';

/** What an agent said of itself in its poll. */
export type AgentInfo = { version: string; capabilities: ReadonlySet<string> };

/** A check left out of an agent's assignment, and why (the check says so while it is unknown). */
export type Gated = { id: string; reason: string };

export type Assignments = {
  /** The checks whose `from` names `host`: server checks assigned to it and its command checks. */
  checksOf(host: string): string[];
  /** The poll answer for `host` as of now, with the checks its agent is too old for. */
  answerFor(host: string, agent: AgentInfo): { answer: PollAnswer; gated: Gated[] };
  /** Calls `listener` with the hosts whose checks changed (once per burst of changes). */
  onChange(listener: (hosts: ReadonlySet<string>) => void): void;
};

/**
 * Which checks each host's agent runs (SPEC Check behavior 4: a check with `from` runs on that host's
 * agent). An index by host kept from the engine's changes, so that a poll, a silence or a change
 * looks at one host's checks only; the listeners hear of a burst of changes (a mon.toml reload
 * adopting hundreds of checks) once, after it.
 */
export function createAssignments(
  deps: Deps,
  engine: CheckEngine,
  options: { sampleEveryMs?: number } = {},
): Assignments {
  const byHost = new Map<string, Set<string>>();
  const listeners: ((hosts: ReadonlySet<string>) => void)[] = [];
  let changed: Set<string> | null = null;

  const fromOf = (entry: Entry | undefined) => entry?.def.from ?? null;
  engine.onCheckChange((before, after) => {
    const id = (after ?? before)!.rec.id;
    const was = fromOf(before);
    const is = fromOf(after);
    if (was !== null) byHost.get(was)?.delete(id);
    if (is !== null) {
      const set = byHost.get(is) ?? new Set<string>();
      set.add(id);
      byHost.set(is, set);
    }
    if (was === null && is === null) return;
    if (changed === null) {
      changed = new Set();
      queueMicrotask(() => {
        const hosts = changed!;
        changed = null;
        for (const listener of listeners) listener(hosts);
      });
    }
    if (was !== null) changed.add(was);
    if (is !== null) changed.add(is);
  });

  return {
    checksOf: (host) => [...(byHost.get(host) ?? [])],
    answerFor(host, agent) {
      const checks: AssignedCheck[] = [];
      const commands: PollAnswer['commands'] = [];
      const gated: Gated[] = [];
      for (const id of byHost.get(host) ?? []) {
        const entry = engine.get(id);
        if (!entry) continue;
        if (entry.rec.hostDefined) {
          commands.push({ id, name: entry.rec.name });
          continue;
        }
        // Heartbeats are pushed to the server; domain checks ask RDAP from the server alone.
        const { def } = entry;
        if (def.kind === 'heartbeat' || def.kind === 'domain' || def.kind === 'command') continue;
        const needs = capabilityNeeded(entry);
        if (needs !== null && !agent.capabilities.has(needs)) {
          gated.push({ id, reason: tooOld(host, agent.version, needs) });
          continue;
        }
        checks.push(assigned(deps, entry, def));
      }
      checks.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
      commands.sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
      const body = {
        protocol: AGENT_PROTOCOL,
        host,
        settings: { sampleEveryMs: options.sampleEveryMs ?? SAMPLE_EVERY_MS },
        checks,
        commands,
      };
      const assignment = createHash('sha256').update(JSON.stringify(body)).digest('hex').slice(0, 24);
      return { answer: { ...body, assignment }, gated };
    },
    onChange(listener) {
      listeners.push(listener);
    },
  };
}

/** What an agent must be able to do to run the check, beyond the base protocol. */
function capabilityNeeded(entry: Entry): AgentCapability | null {
  if (entry.def.kind === 'ping') return 'ping';
  if (entry.def.kind === 'http' && Object.keys(entry.def.headers).length > 0) return 'headers';
  return null;
}

function tooOld(host: string, version: string, needs: AgentCapability): string {
  const what = needs === 'ping' ? 'ping checks' : 'request headers';
  return `the agent on ${host} (${version || 'unknown version'}) is too old for ${what}; update it`;
}

/**
 * A server check as its agent runs it. `env` holds the values of the `${NAME}` references of its
 * target and headers, as the server's own runs would fill them in: any variable for a check of
 * mon.toml, only those `[checks] api_env` lists for a check of the panel or the API.
 */
function assigned(deps: Deps, entry: Entry, def: CheckDefinition): AssignedCheck {
  const target = def.target ?? '';
  const allowed = entry.rec.managed ? null : deps.config.current().checkSettings.apiEnv;
  const env: Record<string, string> = {};
  for (const text of [target, ...Object.values(def.headers)]) {
    for (const name of referencedNames(text)) {
      const value = deps.env[name];
      if (value !== undefined && (allowed === null || allowed.includes(name))) env[name] = value;
    }
  }
  return {
    id: entry.rec.id,
    name: def.name,
    kind: def.kind,
    target,
    method: def.method,
    headers: def.headers,
    everyMs: def.everyMs,
    timeoutMs: def.timeoutMs,
    expect: def.expect,
    allowLinkLocal: def.allowLinkLocal,
    env,
  };
}
