import type { DatabaseSync } from 'node:sqlite';
import type { HelloFrame } from '../../protocol/agent.ts';
import type { HostAlerts } from '../../protocol/hosts.ts';
import { randomSecret, sha256 } from '../auth/secrets.ts';
import type { LiveConfig } from '../config/service.ts';
import { all, int, json, mapper, nullable, one, oneOf, scalar, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * The `hosts` table (migration 014): who a host is, its token, what its agent last said. Host names
 * come from three places: mon.toml (`[[host]]`, `[[service]] hosts`), `POST /api/v1/hosts`, and links
 * made by `POST /api/v1/discovered/monitor`; a host known by any is a host (`knownHosts`).
 */

export const HOST_TOKEN_PREFIX = 'bth_';

/** A new host token: shown once, stored as its SHA-256 (hex). */
export function newHostToken(): { token: string; hash: string } {
  const token = `${HOST_TOKEN_PREFIX}${randomSecret()}`;
  return { token, hash: hostTokenHash(token) };
}

export function hostTokenHash(token: string): string {
  return sha256(token).toString('hex');
}

export type AgentHello = Omit<HelloFrame, 'kind' | 'ts'>;

/**
 * Who made a host's current token (migration 021): `admin`, a signed-in admin; `api`, an API token. The
 * agent of an `api` token is sent only the variables `[checks] api_env` lists (docs/hosts.md).
 */
export type TokenBy = 'admin' | 'api';
export const tokenMakers = ['admin', 'api'] as const satisfies readonly TokenBy[];

export type HostRecord = {
  name: string;
  createdAt: number;
  /** Thresholds set through the API (null: the defaults, or the `[[host]]` table). */
  alerts: HostAlerts | null;
  agent: AgentHello | null;
  firstSeen: number | null;
  lastSeen: number | null;
  silentSince: number | null;
};

const hostRow = mapper({
  name: text,
  createdAt: int,
  alerts: nullable(json<HostAlerts>()),
  agent: nullable(json<AgentHello>()),
  firstSeen: nullable(int),
  lastSeen: nullable(int),
  silentSince: nullable(int),
});
const hostColumns = 'name, created_at, alerts, agent, first_seen, last_seen, silent_since';

export function getHost(db: DatabaseSync, name: string): HostRecord | undefined {
  return one(db, `SELECT ${hostColumns} FROM hosts WHERE name = ?`, hostRow, name);
}

const tokenHostRow = mapper({ name: text, tokenBy: oneOf(tokenMakers) });

/** The host a token belongs to and who made the token (looked up by its SHA-256: the token itself is never stored). */
export function hostByToken(db: DatabaseSync, token: string): { name: string; tokenBy: TokenBy } | undefined {
  if (!token.startsWith(HOST_TOKEN_PREFIX)) return undefined;
  return one(db, 'SELECT name, token_by FROM hosts WHERE token_hash = ?', tokenHostRow, hostTokenHash(token));
}

export function listHostRecords(db: DatabaseSync): HostRecord[] {
  return all(db, `SELECT ${hostColumns} FROM hosts ORDER BY name`, hostRow);
}

/**
 * Adds a host with a token, or gives an existing host a new one (the old stops working at once);
 * `by` says who made it. Returns whether a host of that name had a row already.
 */
export function putHostToken(
  db: DatabaseSync,
  name: string,
  tokenHash: string,
  now: number,
  by: TokenBy,
): boolean {
  const existed = scalar(db, 'SELECT count(*) FROM hosts WHERE name = ?', int, name) > 0;
  statement(
    db,
    `INSERT INTO hosts (name, token_hash, token_by, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT(name) DO UPDATE SET token_hash = excluded.token_hash, token_by = excluded.token_by`,
  ).run(name, tokenHash, by, now);
  return existed;
}

export type ServiceHostLink = { service: string; host: string };

/** Hosts linked to services through the API, as (service, host) pairs. */
export function serviceHostLinks(db: DatabaseSync): ServiceHostLink[] {
  return all(db, 'SELECT service, host FROM service_hosts ORDER BY service, host', linkRow);
}
const linkRow = mapper({ service: text, host: text });

/** The host names mon.toml gives (`[[host]]`, `[[service]] hosts`). */
export function fileHostNames(config: LiveConfig): Set<string> {
  return new Set([...config.hosts.map((h) => h.name), ...config.services.flatMap((s) => s.hosts)]);
}

/** Every host mon knows: mon.toml's, those added through the API or by an agent, and linked ones. */
export function knownHosts(db: DatabaseSync, config: LiveConfig): Set<string> {
  const names = storedHostNames(db);
  for (const name of fileHostNames(config)) names.add(name);
  return names;
}

/** The hosts the database knows (added through the API or by an agent, and linked ones): mon.toml's `from` may name them. */
export function storedHostNames(db: DatabaseSync): Set<string> {
  const names = new Set<string>();
  for (const h of all(db, 'SELECT name FROM hosts', nameRow)) names.add(h.name);
  for (const l of serviceHostLinks(db)) names.add(l.host);
  return names;
}
const nameRow = mapper({ name: text });
