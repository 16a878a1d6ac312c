import { createHmac, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { DAY, HOUR } from '../../protocol/durations.ts';
import type { Deps } from '../deps.ts';
import { blob, int, mapper, one, scalar } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * Visitor ids without cookies: a keyed hash (HMAC-SHA-256) of site, address and user agent with a
 * random salt of the UTC day, kept in `analytics_salts` (so a restart keeps today's ids) and deleted
 * 48 hours after its day began.
 */
export type VisitorIds = {
  /**
   * The visitor id (hex) of this site, address and user agent at `now`: at once when the day's salt is
   * known, else once it is stored (the day's first event).
   */
  idOf(site: string, address: string, userAgent: string, now: number): string | Promise<string>;
  /**
   * The visitor's id of the UTC day before `now`'s, or null when that day's salt is gone or was never
   * made (nobody visited then). Never makes a salt: it reads one stored.
   */
  dayBeforeIdOf(site: string, address: string, userAgent: string, now: number): string | null;
  /**
   * Deletes salts of days that began more than 48 hours before `now` (a writer job), their bytes
   * overwritten, then empties the WAL, which still holds earlier copies of their page. Rejects when the
   * WAL could not be emptied; the next call tries again.
   */
  prune(now: number): Promise<void>;
};

/** How long a day's salt is kept after the day began: the day itself, and a day of grace. */
export const SALT_KEPT_MS = 48 * HOUR;
const SALT_BYTES = 32;
/** Bytes of the hash kept as the id: 128 bits, no collisions among a site's visitors of a day. */
const ID_BYTES = 16;

/** Tries to empty the WAL this many times, this far apart, before leaving it to the next pass. */
const EMPTY_WAL_TRIES = 5;
const EMPTY_WAL_PAUSE_MS = 50;

export function createVisitorIds(deps: Deps): VisitorIds {
  /** Salts were deleted and the WAL may still hold their page: it is emptied at the next prune. */
  let walHoldsSalts = false;
  // One promise per day: concurrent first calls of a day share one writer job, hence one salt. Kept
  // as a key object: an HMAC made from one costs a tenth of one made from the bytes.
  const salts = new Map<number, Promise<KeyObject>>();
  /** The salts stored, by day: most events find theirs here and need no promise. */
  const ready = new Map<number, KeyObject>();
  /** Days looked up for `dayBeforeIdOf` without a salt: a day over gets none. */
  const saltless = new Set<number>();

  const saltOf = (day: number): Promise<KeyObject> => {
    let salt = salts.get(day);
    if (!salt) {
      salt = deps.store.writer.run((db) => {
        // A salt stored before (by this process before a restart) is kept.
        statement(db, 'INSERT OR IGNORE INTO analytics_salts (day, salt) VALUES (?, ?)').run(
          day,
          randomBytes(SALT_BYTES),
        );
        return createSecretKey(
          Buffer.from(scalar(db, 'SELECT salt FROM analytics_salts WHERE day = ?', blob, day)),
        );
      });
      salts.set(day, salt);
      salt.then(
        (key) => {
          if (salts.get(day) === salt) ready.set(day, key);
        },
        // Storage could not take it: the next event of the day tries again.
        () => {
          if (salts.get(day) === salt) salts.delete(day);
        },
      );
    }
    return salt;
  };

  return {
    idOf(site, address, userAgent, now) {
      const day = Math.floor(now / DAY) * DAY;
      const key = ready.get(day);
      if (key) return visitorId(key, site, address, userAgent);
      return saltOf(day).then((salt) => visitorId(salt, site, address, userAgent));
    },
    dayBeforeIdOf(site, address, userAgent, now) {
      const day = Math.floor(now / DAY) * DAY - DAY;
      if (saltless.has(day)) return null;
      let key = ready.get(day);
      if (!key) {
        // Not used since a restart: read from the database (the day is over, so it changes no more).
        const stored = one(deps.store.read, 'SELECT salt FROM analytics_salts WHERE day = ?', saltRow, day);
        if (!stored) {
          saltless.add(day);
          return null;
        }
        key = createSecretKey(Buffer.from(stored.salt));
        ready.set(day, key);
      }
      return visitorId(key, site, address, userAgent);
    },
    async prune(now) {
      const before = now - SALT_KEPT_MS;
      for (const day of salts.keys()) if (day < before) salts.delete(day);
      for (const day of ready.keys()) if (day < before) ready.delete(day);
      for (const day of saltless) if (day < before) saltless.delete(day);
      const deleted = await deps.store.writer.run((db) => {
        // SQLite leaves a deleted row's bytes in its page unless told to overwrite them with zeros:
        // for this delete only (docs/analytics.md, "How visitors are counted").
        const was = scalar(db, 'PRAGMA secure_delete', int);
        db.exec('PRAGMA secure_delete = ON');
        try {
          return Number(statement(db, 'DELETE FROM analytics_salts WHERE day < ?').run(before).changes);
        } finally {
          db.exec(`PRAGMA secure_delete = ${was}`);
        }
      });
      if (deleted > 0) walHoldsSalts = true;
      if (!walHoldsSalts) return;
      // The WAL keeps the pages of earlier commits (each held the salts) until it is written over.
      for (let i = 0; i < EMPTY_WAL_TRIES && walHoldsSalts; i++) {
        if (i > 0) await new Promise((resolve) => setTimeout(resolve, EMPTY_WAL_PAUSE_MS));
        walHoldsSalts = !deps.store.emptyWal();
      }
      if (walHoldsSalts)
        throw new Error('the WAL still holds deleted salts: readers kept it from being emptied');
    },
  };
}

const saltRow = mapper({ salt: blob });

function visitorId(salt: KeyObject, site: string, address: string, userAgent: string): string {
  // None of the three holds a line break (a header cannot), so the joined text is unambiguous.
  return createHmac('sha256', salt)
    .update(`${site}\n${address}\n${userAgent}`)
    .digest()
    .subarray(0, ID_BYTES)
    .toString('hex');
}
