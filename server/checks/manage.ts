import { randomBytes } from 'node:crypto';
import type { DatabaseSync } from 'node:sqlite';
import type { CheckBody, StoredCheckBody } from '../../protocol/check.ts';
import { notListed, unlistedReference } from '../../protocol/env-refs.ts';
import { liveKeys } from '../../protocol/live.ts';
import type { Deps } from '../deps.ts';
import type { CheckRemoved } from '../events.ts';
import { knownHosts } from '../hosts/store.ts';
import { conflict, invalid, notFound } from '../problem.ts';
import type { Tx } from '../store/writer.ts';
import { hashToken, newPingToken } from './ping-tokens.ts';
import type { Entry } from './record.ts';
import { initialState } from './state.ts';
import {
  type CheckRecord,
  deleteCheck,
  dropServiceIfEmpty,
  ensureService,
  getCheck,
  insertChange,
  insertCheck,
  nameConflict,
  setPingToken,
  updateCheckBody,
} from './store.ts';

/**
 * What creating, changing and deleting checks needs of the check engine (engine.ts implements it):
 * the checks in memory, and taking a committed change into the schedule.
 */
export type CheckRegistry = {
  readonly deps: Deps;
  get(id: string): Entry | undefined;
  all(): Entry[];
  adopt(rec: CheckRecord, when: 'now' | 'spread', now?: number): void;
  forget(id: string): void;
  setToken(id: string, tokenHash: string | null): void;
};

/** Creating, changing and deleting checks through the API (file-sync.ts takes in those of mon.toml). */
export const newId = () => randomBytes(8).toString('hex');

/** A check record as a new check starts: unknown, never run. A command check is its host's. */
export function newRecord(
  id: string,
  body: StoredCheckBody,
  now: number,
  managed: boolean,
  tokenHash: string | null,
): CheckRecord {
  return {
    id,
    name: body.name,
    service: body.service,
    kind: body.kind,
    body,
    managed,
    hostDefined: body.kind === 'command',
    createdAt: now,
    updatedAt: now,
    state: initialState(),
    lastRunAt: null,
    lastLatencyMs: null,
    lastDetail: null,
    lastValue: null,
    expiry: null,
    expiryState: null,
    pingTokenHash: tokenHash,
    pingTokenFile: managed && tokenHash !== null,
    pingUrlsMade: 0,
    lastPingAt: null,
    startedAt: null,
    expectedAt: null,
  };
}

/**
 * Checks made in the panel or through the API may refer only to the environment variables that
 * `[checks] api_env` of mon.toml lists: a reference sends the variable's value wherever the target
 * points, and any `write` token may make such a check. 422 names the field and the variable.
 */
function refuseUnlistedReferences(engine: CheckRegistry, body: CheckBody, at = ''): void {
  const allowed = engine.deps.config.current().checkSettings.apiEnv;
  const fields: [string, string | null | undefined][] = [
    ['target', body.target],
    ...Object.entries(body.headers ?? {}).map(([name, value]): [string, string | null] => [
      `headers.${name}`,
      value,
    ]),
  ];
  for (const [field, text] of fields) {
    const name = text ? unlistedReference(text, allowed) : null;
    if (name !== null) {
      throw invalid(
        `${at}${field}`,
        `${notListed(name)}; checks made in the panel or through the API may use only those`,
      );
    }
  }
}

export async function createCheck(engine: CheckRegistry, body: CheckBody): Promise<string> {
  const rec = newApiCheck(engine, body);
  await engine.deps.store.writer.run((db, tx) => insertApiCheck(engine, db, tx, rec));
  return rec.id;
}

/**
 * A new check of the API, judged on what needs no storage (422); `at` prefixes the field of a check
 * inside a larger body (`check.`). Store it with `insertApiCheck`.
 */
export function newApiCheck(engine: CheckRegistry, body: CheckBody, at = ''): CheckRecord {
  refuseUnlistedReferences(engine, body, at);
  return newRecord(newId(), body, engine.deps.clock.now(), false, null);
}

/**
 * Stores a new API check and its service inside a writer job (409 when its name is taken, 422 when its
 * `from` names no host), so that other writes can share the job; the engine schedules it once committed.
 */
export function insertApiCheck(
  engine: CheckRegistry,
  db: DatabaseSync,
  tx: Tx,
  rec: CheckRecord,
  at = '',
): void {
  const { body } = rec;
  const why = nameConflict(db, body.name, body.service, null);
  if (why) throw conflict(why);
  refuseUnknownHost(engine, db, body.from ?? null, at);
  insertInJob(engine, tx, rec, rec.createdAt);
}

/** Inside a writer job: stores a new check (its service made if missing); the engine runs it once committed. */
export function insertInJob(engine: CheckRegistry, tx: Tx, rec: CheckRecord, now: number): void {
  ensureService(tx.db, rec.service, now, rec.managed);
  insertCheck(tx.db, rec);
  tx.afterCommit(() => engine.adopt(rec, 'now'));
  tx.invalidate(liveKeys.service(rec.service), liveKeys.overview);
}

/**
 * A check runs from a host mon knows (inside the writer job, so that it holds when stored): else it
 * would stay unknown forever, waiting for an agent that never connects.
 */
function refuseUnknownHost(engine: CheckRegistry, db: DatabaseSync, from: string | null, at = ''): void {
  if (from === null || knownHosts(db, engine.deps.config.current()).has(from)) return;
  throw invalid(
    `${at}from`,
    `no host named "${from}": add it with POST /api/v1/hosts or name it in mon.toml`,
  );
}

/** 409 for a change of a command check: its host's checks.toml defines it. */
export const hostDefinedConflict = (rec: CheckRecord) =>
  conflict(`this check is defined in the checks.toml of host ${hostOf(rec)}; change it there`);

const hostOf = (rec: CheckRecord) => (rec.body.kind === 'command' ? rec.body.from : '(unknown)');

function editable(engine: CheckRegistry, id: string): Entry {
  const entry = engine.get(id);
  if (!entry) throw notFound(`no check ${id}`);
  if (entry.rec.managed) throw conflict('this check is defined in mon.toml; change it there');
  if (entry.rec.hostDefined) throw hostDefinedConflict(entry.rec);
  return entry;
}

export async function updateCheck(engine: CheckRegistry, id: string, body: CheckBody): Promise<void> {
  const entry = editable(engine, id);
  refuseUnlistedReferences(engine, body);
  await redefine(engine, entry, body, entry.rec.pingTokenHash, false);
}

/** Writes a new definition of a check and reschedules it at once; history stays. */
export async function redefine(
  engine: CheckRegistry,
  entry: Entry,
  body: CheckBody,
  tokenHash: string | null,
  tokenFromFile: boolean,
): Promise<void> {
  const now = engine.deps.clock.now();
  await engine.deps.store.writer.run((db, tx) => {
    const why = nameConflict(db, body.name, body.service, entry.rec.id);
    if (why) throw conflict(why);
    if (!entry.rec.managed) refuseUnknownHost(engine, db, body.from ?? null);
    writeDefinition(engine, tx, entry.rec, body, tokenHash, tokenFromFile, now);
  });
}

/**
 * Inside a writer job: a check's new definition, its move to another service recorded as a change of
 * the old one (and that service dropped once empty); the engine takes it in once committed.
 */
export function writeDefinition(
  engine: CheckRegistry,
  tx: Tx,
  old: CheckRecord,
  body: StoredCheckBody,
  tokenHash: string | null,
  tokenFromFile: boolean,
  now: number,
): void {
  const { db } = tx;
  const moved = old.service !== body.service;
  const retarget = old.kind !== body.kind || targetOf(old.body) !== targetOf(body);
  const hash = body.kind === 'heartbeat' ? tokenHash : null;
  const next = {
    id: old.id,
    name: body.name,
    service: body.service,
    kind: body.kind,
    body,
    pingTokenHash: hash,
    pingTokenFile: tokenFromFile,
  };
  ensureService(db, body.service, now, old.managed);
  if (moved) {
    insertChange(db, {
      checkId: old.id,
      service: old.service,
      ts: now,
      status: null,
      title: `moved to service ${body.service}`,
      detail: `from service ${old.service}`,
    });
  }
  if (!updateCheckBody(db, next, now, retarget)) throw notFound(`no check ${old.id}`);
  if (moved) dropServiceIfEmpty(db, old.service);
  // The record as committed: results written before this job are in memory by now.
  tx.afterCommit(() => {
    const base = engine.get(old.id)?.rec ?? old;
    engine.adopt(
      {
        ...base,
        ...next,
        updatedAt: now,
        expiry: retarget ? null : base.expiry,
        expiryState: retarget ? null : base.expiryState,
      },
      'now',
      now,
    );
  });
  tx.invalidate(liveKeys.service(old.service), liveKeys.service(body.service), liveKeys.overview);
}

const targetOf = (body: StoredCheckBody) => (body.kind === 'command' ? null : (body.target ?? null));

export async function removeCheck(engine: CheckRegistry, id: string): Promise<void> {
  const entry = editable(engine, id);
  const now = engine.deps.clock.now();
  await engine.deps.store.writer.run((_db, tx) => deleteInJob(engine, tx, entry.rec, now));
}

/**
 * Inside a writer job: deletes a check with its history, and its service once empty; `check.removed`
 * closes its alerts in the same transaction, and the engine forgets it once committed.
 */
export function deleteInJob(engine: CheckRegistry, tx: Tx, rec: CheckRecord, now: number): void {
  deleteCheck(tx.db, rec.id);
  dropServiceIfEmpty(tx.db, rec.service);
  engine.deps.events.dispatch(tx, [removedEvent(rec, now)], now);
  tx.afterCommit(() => engine.forget(rec.id));
  tx.invalidate(liveKeys.service(rec.service), liveKeys.overview);
}

/** The event of a check deleted or taken out of mon.toml: its alert, if any, stops failing. */
export function removedEvent(rec: CheckRecord, ts: number): CheckRemoved {
  return { type: 'check.removed', checkId: rec.id, name: rec.name, service: rec.service, ts };
}

/** A new ping URL for a heartbeat; the previous one stops working. */
export async function makePingToken(
  engine: CheckRegistry,
  id: string,
): Promise<{ token: string; replaced: boolean }> {
  const entry = engine.get(id);
  if (!entry) throw notFound(`no check ${id}`);
  if (entry.rec.kind !== 'heartbeat') throw invalid('kind', 'only heartbeats have ping URLs');
  if (entry.rec.pingTokenFile) throw conflict('this heartbeat takes its ping_token from mon.toml');
  const token = newPingToken();
  const hash = hashToken(token);
  const replaced = entry.rec.pingUrlsMade > 0;
  await engine.deps.store.writer.run((db, tx) => {
    if (!setPingToken(db, id, hash, false, true)) throw notFound(`no check ${id}`);
    tx.afterCommit(() => {
      engine.setToken(id, hash);
      entry.rec.pingUrlsMade++;
    });
  });
  return { token, replaced };
}

/** The stored record of a check (for tests and the export). */
export function storedCheck(engine: CheckRegistry, id: string): CheckRecord | null {
  return getCheck(engine.deps.store.read, id);
}
