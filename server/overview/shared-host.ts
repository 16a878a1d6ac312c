import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import { MINUTE } from '../../protocol/durations.ts';
import { expandReferences } from '../../protocol/env-refs.ts';
import { parseHostPort } from '../../protocol/targets.ts';
import { normalizeAddress } from '../auth/client-address.ts';
import type { CheckEngine } from '../checks/engine.ts';
import type { LiveConfig } from '../config/service.ts';

/**
 * Whether mon runs on a machine it watches: then, when that machine stops, mon stops with it and
 * nobody is told. This machine is its host name and its addresses (loopback included); a watched
 * machine is a host named in `[[service]] hosts`, `[[host]]` or a check's `from`, or the target of a
 * check mon runs itself (http, tcp, ping). Target names are resolved as the system resolves them,
 * remembered for 10 minutes (an unanswered lookup for 1 minute).
 */

const REMEMBER_MS = 10 * MINUTE;
const REMEMBER_FAILED_MS = MINUTE;
const LOOKUP_TIMEOUT_MS = 2000;

const short = (name: string) => name.toLowerCase().replace(/\.$/, '').split('.')[0]!;

/** This machine's own addresses, loopback included. */
function ownAddresses(): Set<string> {
  const out = new Set<string>();
  for (const list of Object.values(networkInterfaces()))
    for (const i of list ?? []) out.add(normalizeAddress(i.address.split('%')[0]!));
  return out;
}

function isOwnAddress(address: string, own: Set<string>): boolean {
  const a = normalizeAddress(address);
  return a.startsWith('127.') || a === '::1' || a === '0.0.0.0' || a === '::' || own.has(a);
}

/** The host a check mon runs itself would connect to, or null (other kinds, agent checks, a bad target). */
export function targetHost(kind: string, target: string | null, from: string | null): string | null {
  if (target === null || from !== null) return null;
  if (kind === 'http') {
    try {
      return new URL(target).hostname.replace(/^\[|\]$/g, '');
    } catch {
      return null;
    }
  }
  if (kind === 'tcp') return parseHostPort(target)?.host ?? null;
  if (kind === 'ping') return target;
  return null;
}

export class SharedHostCheck {
  private readonly resolved = new Map<string, { own: boolean | null; until: number }>();

  /** true: mon runs on a machine it watches; false: it does not; null: a target name did not resolve. */
  async check(
    config: LiveConfig,
    engine: CheckEngine,
    env: Readonly<Record<string, string | undefined>>,
    now: number,
  ): Promise<boolean | null> {
    const me = short(hostname());
    const hosts = [
      ...config.services.flatMap((s) => s.hosts),
      ...config.hosts.map((h) => h.name),
      ...engine.all().flatMap((e) => (e.def.from === null ? [] : [e.def.from])),
    ];
    if (hosts.some((h) => short(h) === me)) return true;

    const own = ownAddresses();
    const names = new Set<string>();
    for (const { def } of engine.all()) {
      if (def.target === null) continue;
      const { value, missing } = expandReferences(def.target, env);
      const host = missing.length > 0 ? null : targetHost(def.kind, value, def.from);
      if (host === null) continue;
      if (isIP(host)) {
        if (isOwnAddress(host, own)) return true;
      } else if (short(host) === me) {
        return true;
      } else {
        names.add(host.toLowerCase());
      }
    }
    const answers = await Promise.all([...names].map((name) => this.resolve(name, own, now)));
    if (answers.includes(true)) return true;
    return answers.includes(null) ? null : false;
  }

  /** Whether `name` resolves to this machine; null when the resolver did not answer in time. */
  private async resolve(name: string, own: Set<string>, now: number): Promise<boolean | null> {
    const known = this.resolved.get(name);
    if (known && known.until > now) return known.own;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), LOOKUP_TIMEOUT_MS);
    });
    const answer = await Promise.race([
      lookup(name, { all: true }).then(
        (addresses) => addresses.some((a) => isOwnAddress(a.address, own)),
        // A name that does not exist is no machine at all; any other failure leaves it unknown.
        (error: NodeJS.ErrnoException) =>
          error.code === 'ENOTFOUND' || error.code === 'ENODATA' ? false : null,
      ),
      timeout,
    ]);
    clearTimeout(timer);
    this.resolved.set(name, {
      own: answer,
      until: now + (answer === null ? REMEMBER_FAILED_MS : REMEMBER_MS),
    });
    return answer;
  }
}
