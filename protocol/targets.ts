import { linkLocalReason, linkLocalRefusal } from './addresses.ts';
import { type CheckKind, connectingKinds } from './kinds.ts';

export { connectingKinds };

import { hiddenTextProblem } from './text-rules.ts';

/** What a check's `target` may be, per kind, with and without `${NAME}` references. */

const hostnamePattern =
  /^(?=.{1,253}$)([a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*\.?$/i;

/** `text` as an absolute http:// or https:// URL, or null when it is not one. */
export function httpUrlOf(text: string): URL | null {
  if (!URL.canParse(text)) return null;
  const url = new URL(text);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
}

export function isHostname(value: string): boolean {
  return hostnamePattern.test(value);
}

function isIp(value: string): boolean {
  return /^(\d{1,3})(\.\d{1,3}){3}$/.test(value) || (value.includes(':') && /^[0-9a-f:.]+$/i.test(value));
}

/** `${NAME}`: a reference to an environment variable of the server (see protocol/env-refs.ts). */
const referencePattern = /\$\{[A-Za-z_][A-Za-z0-9_]*\}/g;

/** Splits `host:port` and `[v6]:port`. */
export function parseHostPort(target: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-f:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/i.exec(target);
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535) return null;
  return { host: m[1] ?? m[2]!, port };
}

/**
 * Why `target` is not valid for `kind`, or null. `${NAME}` references are filled in when the check runs,
 * which checks the result again. Here a target made of references only is accepted, and one with
 * references must be valid with each replaced by `x` (a host, a path) or by `1` (a port); a URL may
 * start with a reference that holds its scheme and host (`${BASE}/health`).
 */
export function referencedTargetProblem(kind: CheckKind, target: string): string | null {
  if (!target.includes('${')) return targetProblem(kind, target);
  const hidden = hiddenTextProblem(target);
  if (hidden) return hidden;
  if (target.replace(referencePattern, '') === '') return null;
  const candidates = ['x', '1'].flatMap((sample) => {
    const filled = target.replace(referencePattern, sample);
    return kind === 'http' && target.startsWith('${') ? [filled, `http://${filled}`] : [filled];
  });
  if (candidates.some((candidate) => targetProblem(kind, candidate) === null)) return null;
  return targetProblem(kind, candidates[0]!);
}

/**
 * Why `target`, with no references left, is not valid for `kind`, or null. Text that would be fetched
 * as something else than written (a URL parser drops line breaks and tabs) is refused first.
 */
export function targetProblem(kind: CheckKind, target: string): string | null {
  const hidden = hiddenTextProblem(target);
  if (hidden) return hidden;
  switch (kind) {
    case 'http':
      return httpUrlOf(target) ? null : 'must be an http:// or https:// URL';
    case 'tcp': {
      const hostPort = parseHostPort(target);
      if (!hostPort) return 'must be host:port';
      return isHostname(hostPort.host) || isIp(hostPort.host) ? null : 'must be host:port';
    }
    case 'dns':
      if (isIp(target)) return 'must be a DNS name, not an IP address';
      return isHostname(target) ? null : 'must be a DNS name';
    case 'ping':
      return isHostname(target) || isIp(target) ? null : 'must be a host name or an IP address';
    case 'domain':
      return isHostname(target) && target.includes('.') && !isIp(target)
        ? null
        : 'must be a registered domain such as example.com';
    case 'heartbeat':
      return null;
  }
}

/** The host a valid target without references connects to, for the kinds that connect. */
function targetHost(kind: CheckKind, target: string): string | null {
  if (kind === 'http') return new URL(target).hostname;
  if (kind === 'tcp') return parseHostPort(target)?.host ?? null;
  if (kind === 'ping') return target;
  return null;
}

/**
 * Why a valid target must not be checked without allowing link-local addresses, or null. Only what the
 * target says itself is known here; runs check each address they connect to, after name lookup.
 */
export function linkLocalTargetProblem(kind: CheckKind, target: string): string | null {
  if (target.includes('${')) return null;
  const host = targetHost(kind, target);
  const reason = host === null ? null : linkLocalReason(host);
  return reason ? linkLocalRefusal(host!, reason) : null;
}
