import type { DatabaseSync } from 'node:sqlite';
import { resolutions } from '../checks/rollups.ts';
import type { Deps } from '../deps.ts';
import { housekeeping } from '../housekeeping.ts';
import { deleting, PRUNE_CHUNK_ROWS, type PrunePart, pruneInChunks } from '../store/pruning.ts';
import { all, exists, int, mapper, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import { AGENT_LOG_KEEP_MS, AGENT_LOG_MAX_LINES } from './logs.ts';
import { purgeRemovedHosts, removedHostParts } from './remove.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Host events are likely-cause evidence for incidents, which reads reach back 400 days. */
export const HOST_EVENT_KEEP_MS = 400 * 86_400_000;
/** A container or unit gone this long is forgotten; its rollups age out with their resolution, but: */
export const GONE_ITEM_KEEP_MS = 86_400_000;
/**
 * A container or unit listed for less than this (a CI job, a transient unit) and not seen in the 15
 * days before (no 10-minute rollups older than its first sample; a recurring one is kept as any) is
 * forgotten with its hour and day series. Its minute and 10-minute ones age out on their own.
 */
export const SHORT_LIVED_MS = HOUR_MS;

/**
 * Whether the row `i` is of a short-lived item, as above. Its listed life spans at most 2 hour and 2
 * day buckets: with its row, at most `SHORT_LIVED_ROWS` rows to delete.
 */
const SHORT_LIVED = `i.gone_at - i.first_seen < ${SHORT_LIVED_MS} AND NOT EXISTS (SELECT 1 FROM item_rollups AS e
  WHERE e.host = i.host AND e.kind = i.kind AND e.name = i.name AND e.res = 't' AND e.bucket < i.first_seen - i.first_seen % 600000)`;
const SHORT_LIVED_ROWS = 5;

/** Items gone a day, short-lived ones apart, along `host_items_gone`: forgotten as they are (exported for the test of its plan). */
export const GONE_ITEMS_SQL = `DELETE FROM host_items WHERE (host, kind, name) IN (SELECT host, kind, name FROM host_items AS i
  WHERE i.gone_at IS NOT NULL AND i.gone_at < ? AND NOT (${SHORT_LIVED}) LIMIT ?)`;
/** Short-lived items gone a day, along `host_items_gone` (exported for the test of its plan). */
export const SHORT_LIVED_SQL = `SELECT host, kind, name, first_seen, gone_at FROM host_items AS i
  WHERE i.gone_at IS NOT NULL AND i.gone_at < ? AND ${SHORT_LIVED} LIMIT ?`;
/** One item's rollups of a resolution over its life, by their key (exported for the test of its plan). */
export const ITEM_SERIES_SQL = `DELETE FROM item_rollups
  WHERE host = ? AND kind = ? AND name = ? AND res = ? AND bucket >= ? AND bucket <= ?`;

const shortLivedRow = mapper({ host: text, kind: text, name: text, firstSeen: int, goneAt: int });

/**
 * Forgets short-lived items gone a day with their hour and day series, at most `limit` rows (or
 * SHORT_LIVED_ROWS, when less is left): a batch of items at a time, each deleted with its rollups, so
 * that none is visited twice.
 */
function forgettingShortLived(cutoff: number): PrunePart {
  return (db, limit) => {
    let left = limit;
    while (left > 0) {
      // Under SHORT_LIVED_ROWS left, one item still: a part that deletes fewer than `limit` is done.
      const take = Math.max(1, Math.floor(left / SHORT_LIVED_ROWS));
      const items = all(db, SHORT_LIVED_SQL, shortLivedRow, cutoff, take);
      for (const { host, kind, name, firstSeen, goneAt } of items) {
        for (const ms of [HOUR_MS, DAY_MS]) {
          const res = ms === HOUR_MS ? 'h' : 'd';
          const from = firstSeen - (firstSeen % ms);
          left -= Number(statement(db, ITEM_SERIES_SQL).run(host, kind, name, res, from, goneAt).changes);
        }
        statement(db, 'DELETE FROM host_items WHERE host = ? AND kind = ? AND name = ?').run(
          host,
          kind,
          name,
        );
        left--;
      }
      if (items.length < take) break;
    }
    return limit - left;
  };
}

const nameRow = mapper({ name: text });

/** Everything a pass deletes, in parts, each bounded by its `limit`. */
function partsOf(db: DatabaseSync, now: number): PrunePart[] {
  const parts: PrunePart[] = [];
  for (const { res, keepMs } of resolutions) {
    parts.push(
      deleting(
        `DELETE FROM host_rollups WHERE (host, res, bucket) IN
           (SELECT host, res, bucket FROM host_rollups WHERE res = ? AND bucket < ? LIMIT ?)`,
        res,
        now - keepMs,
      ),
      deleting(
        `DELETE FROM item_rollups WHERE (host, kind, name, res, bucket) IN
           (SELECT host, kind, name, res, bucket FROM item_rollups WHERE res = ? AND bucket < ? LIMIT ?)`,
        res,
        now - keepMs,
      ),
    );
  }
  parts.push(
    deleting(
      'DELETE FROM host_events WHERE id IN (SELECT id FROM host_events WHERE ts < ? LIMIT ?)',
      now - HOST_EVENT_KEEP_MS,
    ),
    deleting(GONE_ITEMS_SQL, now - GONE_ITEM_KEEP_MS),
    forgettingShortLived(now - GONE_ITEM_KEEP_MS),
  );
  // Agent logs host by host, along their index: lines past 7 days, then those beyond the newest 10,000.
  for (const { name } of all(db, 'SELECT name FROM hosts ORDER BY name', nameRow)) {
    parts.push(
      deleting(
        'DELETE FROM agent_logs WHERE id IN (SELECT id FROM agent_logs WHERE host = ? AND ts < ? LIMIT ?)',
        name,
        now - AGENT_LOG_KEEP_MS,
      ),
      deleting(
        `DELETE FROM agent_logs WHERE id IN (SELECT id FROM agent_logs WHERE host = ?
           ORDER BY ts DESC, id DESC LIMIT ? OFFSET ${AGENT_LOG_MAX_LINES})`,
        name,
      ),
    );
  }
  // What removed hosts left, had a crash cut their deletion short.
  parts.push(...removedHostParts(db));
  return parts;
}

/**
 * Deletes what hosts keep beyond its time: rollups, agent logs, host events, items long gone (with
 * the hour and day series of short-lived ones), and what removed hosts left. The pass runs in writer
 * jobs of at most `chunkRows` rows and `PRUNE_CHUNK_MS`, yielding to the event loop between them.
 * Resolves with the rows deleted and the jobs it took.
 */
export async function pruneHosts(
  deps: Deps,
  chunkRows = PRUNE_CHUNK_ROWS,
): Promise<{ deleted: number; jobs: number }> {
  const now = deps.clock.now();
  return pruneInChunks(deps.store.writer, (db) => partsOf(db, now), chunkRows);
}

/**
 * Runs `pruneHosts` a minute after start and then every hour (server/housekeeping.ts), and deletes
 * what a removed host left once its removal commits (remove.ts) and at start (a removal a crash cut
 * short). Passes and purges run one after another.
 */
export function createHousekeeping(deps: Deps) {
  const job = housekeeping(deps, 'hosts', () => [
    { failed: 'host data not pruned', run: () => pruneHosts(deps) },
  ]);
  const purgeRemoved = () => job.queue('removed hosts not purged', () => purgeRemovedHosts(deps));
  return {
    start() {
      if (exists(deps.store.read, 'SELECT 1 FROM hosts_removed')) void purgeRemoved();
      job.start();
    },
    stop: job.stop,
    /** A host's removal committed: its series, events and logs go now, in bounded jobs. */
    purgeRemoved,
    /** Resolves once the passes under way, if any, are done. */
    idle: job.idle,
  };
}
