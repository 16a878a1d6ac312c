import { createHash } from 'node:crypto';
import {
  AGENT_PROTOCOL,
  type AgentCapability,
  type AssignedCheck,
  type PollAnswer,
  SAMPLE_EVERY_MS,
} from '../../protocol/agent.ts';
import type { CheckDefinition } from '../../protocol/check.ts';
import { notListed, referencedNames, unlistedReference } from '../../protocol/env-refs.ts';
import type { CheckEngine, Entry } from '../checks/engine.ts';
import type { Deps } from '../deps.ts';
import type { TokenBy } from './store.ts';

/** What an agent said of itself in its poll. */
export type AgentInfo = { version: string; capabilities: ReadonlySet<string> };

/** A check left out of an agent's assignment, and why (the check says so while it is unknown). */
export type Gated = { id: string; reason: string };

export type Assignments = {
  /** The checks whose `from` names `host`: server checks assigned to it and its command checks. */
  checksOf(host: string): string[];
  /**
   * The poll answer for `host` as of now, for an agent whose token `tokenBy` made, with the checks left
   * out: those its agent is too old for, and those of mon.toml that need a variable its token may not have.
   */
  answerFor(host: string, agent: AgentInfo, tokenBy: TokenBy): { answer: PollAnswer; gated: Gated[] };
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
    answerFor(host, agent, tokenBy) {
      const apiEnv = deps.config.current().checkSettings.apiEnv;
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
        // A check of mon.toml may use any variable, but only an admin's token carries them: an API
        // token's agent gets those api_env lists, as any check made through the API (DESIGN rule 8).
        const allowed = entry.rec.managed && tokenBy === 'admin' ? null : apiEnv;
        const unlisted = entry.rec.managed && allowed !== null ? firstUnlisted(def, allowed) : null;
        if (unlisted !== null) {
          gated.push({ id, reason: apiTokenHost(host, unlisted) });
          continue;
        }
        checks.push(assigned(deps, entry, def, allowed));
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

/** The first `${NAME}` of the check's target and headers that `allowed` does not list, and where it is. */
function firstUnlisted(
  def: CheckDefinition,
  allowed: readonly string[],
): { name: string; where: string } | null {
  const places: [string, string][] = [
    ['the target', def.target ?? ''],
    ...Object.entries(def.headers).map(([name, value]): [string, string] => [`header ${name}`, value]),
  ];
  for (const [where, text] of places) {
    const name = unlistedReference(text, allowed);
    if (name !== null) return { name, where };
  }
  return null;
}

/** Why a check of mon.toml is not sent to an agent whose token an API token made; says what to do. */
function apiTokenHost(host: string, unlisted: { name: string; where: string }): string {
  return (
    `${notListed(unlisted.name)} (used in ${unlisted.where}), and the token of the agent on ${host} ` +
    `was made with an API token: make the host's token in the panel as an admin, or list ${unlisted.name} in api_env`
  );
}

/**
 * A server check as its agent runs it. `env` holds the values of the `${NAME}` references of its
 * target and headers that `allowed` lists (null: any), as the server's own runs would fill them in:
 * any variable for a check of mon.toml, only those `[checks] api_env` lists for a check of the panel
 * or the API, or for any check sent to an agent whose token an API token made.
 */
function assigned(
  deps: Deps,
  entry: Entry,
  def: CheckDefinition,
  allowed: readonly string[] | null,
): AssignedCheck {
  const target = def.target ?? '';
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
