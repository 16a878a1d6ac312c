import { isIP } from 'node:net';
import { z } from 'zod';
import { type WatchdogKind, watchdogKinds } from '../../protocol/notify.ts';
import { httpUrlOf } from '../../protocol/targets.ts';
import { privateReason } from '../http/private-addresses.ts';
import { holdsUserInfo, userInfoRefused } from '../notify/secrets.ts';

/**
 * The watchdog's two targets (docs/notifications.md "Watchdog") and the rules their settings follow
 * in mon.toml and in the API alike: where a URL may point, what a token may hold, and what reads show
 * of each. Pure, for the config section, the routes and the sender.
 */

export { type WatchdogKind, watchdogKinds };

/** What one target sends to: `token` is the edge's bearer token (null for the heartbeat). */
export type TargetSettings = { url: string; token: string | null; allowPrivate: boolean };

/** A target being sent to: its settings, and whether mon.toml set it. */
export type Target = TargetSettings & { kind: WatchdogKind; managed: boolean };

export const MIN_EVERY_MS = 10_000;
export const DEFAULT_EVERY_MS = 60_000;
export const MAX_EVERY_MS = 86_400_000;

/**
 * Why `url` cannot be a watchdog target, or null. Plain http:// and private IP addresses are for a box
 * on the user's own network, so both need allowPrivate (`allowKey` names it as the caller spells it):
 * elsewhere a token or a secret ping path would cross the internet in clear, or reach mon's own host.
 * Names that resolve to private addresses are refused when sent (server/http/outbound.ts).
 */
export function urlProblem(text: string, allowPrivate: boolean, allowKey: string): string | null {
  const url = httpUrlOf(text);
  if (!url) return 'must be an http:// or https:// URL';
  if (holdsUserInfo(text)) return userInfoRefused;
  if (url.protocol === 'http:' && !allowPrivate) {
    return `must be https:// (plain http:// only with ${allowKey}, for a box on your own network)`;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const reason = isIP(host) ? privateReason(host) : null;
  if (reason && !allowPrivate) return `${host} is ${reason}: set ${allowKey} to reach it`;
  return null;
}

/** A watchdog URL: trimmed, at most 2048 characters; the rest is `urlProblem`, checked with its flag. */
export const urlText = z.string().trim().min(1, 'must not be empty').max(2048);

/** A bearer token: printable characters without spaces, so that it fits an Authorization header. */
export const tokenText = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(4096)
  .regex(/^[\x21-\x7e]+$/, 'must be printable characters without spaces');

/**
 * What reads show of a target's URL. The heartbeat's whole path is its secret (a ping URL such as
 * `https://hc.example.com/ping/<uuid>`), so only its host (and port) shows; the edge's secret is its
 * token, so its URL shows without the query, which may carry a key of its own.
 */
export function addressOf(kind: WatchdogKind, text: string): string {
  const url = new URL(text);
  return kind === 'heartbeat' ? url.host : `${url.origin}${url.pathname}`;
}

/** Whether two targets send the same request (the send state of one is not the other's). */
export function sameTarget(a: TargetSettings | null, b: TargetSettings | null): boolean {
  if (a === null || b === null) return a === b;
  return a.url === b.url && a.token === b.token && a.allowPrivate === b.allowPrivate;
}
