import type { DatabaseSync } from 'node:sqlite';
import type { Evidence } from '../../../protocol/incidents.ts';
import { hostEventsBetween } from '../../hosts/evidence.ts';
import type { HostCandidate, HostEvent, HostSymptom, Reach, ScopeAlert } from './candidates.ts';
import { HOST_TIME } from './formula.ts';

/**
 * Likely causes from what agents saw on the incident's hosts (the hosts feature's host events, read
 * through `hostEventsBetween`): container restarts and OOM kills, systemd units failed or restarted,
 * thresholds crossed, an agent gone silent. One query, bounded by the hosts and by time; the events become one candidate per container, unit, metric or
 * agent, with each event as evidence. What the incident's own host alerts are about is left out: a
 * `web-1: CPU above 90%` incident is not caused by web-1's CPU crossing its limit, nor `web-1: agent
 * silent` by that agent's silence (symptoms are never causes).
 */

/** Events read at most: the newest, nearest the start (a container restarting every sample for hours). */
const MAX_EVENTS = 2000;
/** Evidence lines a candidate shows at most, the newest. */
const MAX_EVIDENCE = 10;

const groupOf: Record<HostEvent['kind'], HostCandidate['kind']> = {
  restart: 'container',
  oom: 'container',
  unit_failed: 'unit',
  unit_restart: 'unit',
  threshold: 'host',
  silent: 'agent',
};

/**
 * The host events an incident's own alerts are about: `host:<name>:<metric>` its metric's threshold
 * crossings, `agent:<name>` its agent's silences, and a container alert that opened the incident
 * (`alerts` are in join order) that container's restarts: a restart loop is not caused by its own
 * restarts. A container alert joining an incident something else opened leaves them causes (a crash
 * loop taking a check down), and OOM kills always are: they explain exits and restarts.
 */
export function hostSymptomsOf(alerts: readonly ScopeAlert[]): HostSymptom[] {
  const symptoms: HostSymptom[] = [];
  for (const [i, { key, host }] of alerts.entries()) {
    if (host === null) continue;
    if (key === `agent:${host}`) symptoms.push({ host, kind: 'silent', subject: 'agent' });
    else if (key.startsWith(`host:${host}:`))
      symptoms.push({ host, kind: 'threshold', subject: key.slice(`host:${host}:`.length) });
    else if (i === 0 && key.startsWith(`container:${host}:`))
      symptoms.push({ host, kind: 'restart', subject: key.slice(`container:${host}:`.length) });
  }
  return symptoms;
}

export function hostCandidates(db: DatabaseSync, start: number, reach: Reach): HostCandidate[] {
  if (reach.hosts.size === 0) return [];
  const rows = hostEventsBetween(db, [...reach.hosts.keys()], start - HOST_TIME.window, start, MAX_EVENTS);
  const symptom = (r: (typeof rows)[number]) =>
    reach.symptoms.some((s) => s.host === r.host && s.kind === r.kind && s.subject === r.subject);
  const byThing = new Map<string, HostCandidate>();
  for (const r of rows.reverse()) {
    if (symptom(r)) continue;
    const kind = groupOf[r.kind];
    const key = `${kind}\0${r.host}\0${r.subject}`;
    let candidate = byThing.get(key);
    if (!candidate) {
      candidate = { kind, host: r.host, subject: r.subject, service: r.service, events: [] };
      byThing.set(key, candidate);
    }
    candidate.events.push({ ts: r.ts, kind: r.kind, detail: r.detail });
  }
  return [...byThing.values()];
}

/** A host candidate in words: its title and evidence. */
export function hostFacts(c: HostCandidate): { title: string; evidence: Evidence[] } {
  const where = c.kind === 'host' || c.kind === 'agent' ? c.host : `${c.subject} on ${c.host}`;
  const evidence = c.events.slice(-MAX_EVIDENCE).map((e) => ({
    what: `${where}: ${e.detail}`,
    ts: e.ts,
    by: null,
    url: null,
  }));
  return { title: titleOf(c, where), evidence };
}

function titleOf(c: HostCandidate, where: string): string {
  const count = (kind: HostEvent['kind']) => c.events.filter((e) => e.kind === kind).length;
  const times = (n: number) => (n > 1 ? ` ${n} times` : '');
  switch (c.kind) {
    case 'container': {
      const oom = count('oom');
      return oom > 0
        ? `${where} killed for memory${times(oom)}`
        : `${where} restarted${times(count('restart'))}`;
    }
    case 'unit': {
      const failed = count('unit_failed');
      return failed > 0
        ? `${where} failed${times(failed)}`
        : `${where} restarted${times(count('unit_restart'))}`;
    }
    case 'host':
      return `${where}: ${c.events.at(-1)!.detail}`;
    case 'agent':
      return `The agent on ${c.host} went silent`;
  }
}
