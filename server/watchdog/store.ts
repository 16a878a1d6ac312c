import type { DatabaseSync } from 'node:sqlite';
import type { WatchdogRead, WatchdogTarget } from '../../protocol/notify.ts';
import { bool, int, mapper, nullable, one, oneOf, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { WatchdogSettings } from './config.ts';
import { addressOf, type Target, type TargetSettings, type WatchdogKind, watchdogKinds } from './targets.ts';

/**
 * The `watchdog` table (migration 013): targets set through the API with their URL and token, and the
 * send state of every target. A target mon.toml sets has a row with `managed` = 1 and no URL or token.
 */

const row = mapper({
  kind: oneOf(watchdogKinds),
  url: nullable(text),
  token: nullable(text),
  allowPrivate: bool,
  managed: bool,
  lastSentAt: nullable(int),
  lastError: nullable(text),
  lastErrorAt: nullable(int),
});

type Row = ReturnType<typeof row.finish>;

function rowOf(db: DatabaseSync, kind: WatchdogKind): Row | undefined {
  return one(
    db,
    `SELECT kind, url, token, allow_private, managed, last_sent_at, last_error, last_error_at
     FROM watchdog WHERE kind = ?`,
    row,
    kind,
  );
}

/** The target of `kind` set through the API, or null. */
export function storedSettings(db: DatabaseSync, kind: WatchdogKind): TargetSettings | null {
  const stored = rowOf(db, kind);
  if (!stored || stored.managed || stored.url === null) return null;
  return { url: stored.url, token: stored.token, allowPrivate: stored.allowPrivate };
}

/** The target of `kind`: the file's when it sets one, else the one set through the API, else null. */
export function targetOf(db: DatabaseSync, file: WatchdogSettings, kind: WatchdogKind): Target | null {
  const fromFile = file[kind];
  if (fromFile) return { ...fromFile, kind, managed: true };
  const stored = storedSettings(db, kind);
  return stored && { ...stored, kind, managed: false };
}

/**
 * Stores a target set through the API. The send state stays when the URL does (a new token, the same
 * place); a new URL is a new place, whose state starts empty.
 */
export function putStored(db: DatabaseSync, kind: WatchdogKind, settings: TargetSettings): void {
  const before = rowOf(db, kind);
  const keep = before !== undefined && !before.managed && before.url === settings.url;
  statement(
    db,
    `INSERT OR REPLACE INTO watchdog
       (kind, url, token, allow_private, managed, last_sent_at, last_error, last_error_at)
     VALUES (?, ?, ?, ?, 0, ?, ?, ?)`,
  ).run(
    kind,
    settings.url,
    settings.token,
    settings.allowPrivate ? 1 : 0,
    keep ? before.lastSentAt : null,
    keep ? before.lastError : null,
    keep ? before.lastErrorAt : null,
  );
}

/** Removes the target set through the API; false when there was none. */
export function removeStored(db: DatabaseSync, kind: WatchdogKind): boolean {
  return statement(db, 'DELETE FROM watchdog WHERE kind = ? AND managed = 0').run(kind).changes > 0;
}

/**
 * Makes the row of `kind` follow the file: a target the file sets gets a send-state row, which
 * replaces one set through the API (the file wins; its state starts empty, as does the state of a
 * file target that `changed`); a target the file does not set loses its send-state row.
 */
export function followFile(db: DatabaseSync, kind: WatchdogKind, fileSets: boolean, changed: boolean): void {
  const before = rowOf(db, kind);
  if (!fileSets) {
    statement(db, 'DELETE FROM watchdog WHERE kind = ? AND managed = 1').run(kind);
  } else if (!before?.managed || changed) {
    statement(
      db,
      `INSERT OR REPLACE INTO watchdog (kind, url, token, allow_private, managed) VALUES (?, NULL, NULL, 0, 1)`,
    ).run(kind);
  }
}

/** What one request came to: a 2xx, or the reason it failed in words (no token, no secret path). */
export type SendOutcome = { ok: true } | { ok: false; error: string };

/** Stores an outcome: a success sets `last_sent_at` and clears the error, which stays until then. */
export function recordOutcome(db: DatabaseSync, kind: WatchdogKind, outcome: SendOutcome, at: number): void {
  if (outcome.ok) {
    statement(
      db,
      'UPDATE watchdog SET last_sent_at = ?, last_error = NULL, last_error_at = NULL WHERE kind = ?',
    ).run(at, kind);
  } else {
    statement(db, 'UPDATE watchdog SET last_error = ?, last_error_at = ? WHERE kind = ?').run(
      outcome.error,
      at,
      kind,
    );
  }
}

/** `GET /watchdog`: each target with its state, never a token; `everyMs` from the file. */
export function watchdogRead(db: DatabaseSync, file: WatchdogSettings): WatchdogRead {
  const read = (kind: WatchdogKind): WatchdogTarget | null => {
    const target = targetOf(db, file, kind);
    if (!target) return null;
    const stored = rowOf(db, kind);
    // The state is this target's only when the row is of the same origin (the file's, or the API's).
    const state = stored && stored.managed === target.managed ? stored : null;
    return {
      address: addressOf(kind, target.url),
      managed: target.managed,
      allowPrivate: target.allowPrivate,
      lastSentAt: state?.lastSentAt ?? null,
      lastError: state?.lastError ?? null,
      lastErrorAt: state?.lastErrorAt ?? null,
    };
  };
  return { edge: read('edge'), heartbeat: read('heartbeat'), everyMs: file.everyMs };
}
