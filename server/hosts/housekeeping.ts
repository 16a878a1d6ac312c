import type { DatabaseSync } from 'node:sqlite';
import { resolutions } from '../checks/rollups.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { deleting, PRUNE_CHUNK_ROWS, type PrunePart, pruneInChunks } from '../store/pruning.ts';
import { all, exists, mapper, text } from '../store/rows.ts';
import { AGENT_LOG_KEEP_MS, AGENT_LOG_MAX_LINES } from './logs.ts';
import { purgeRemovedHosts, removedHostParts } from './remove.ts';

const HOUR_MS = 3_600_000;
/** Host events are likely-cause evidence for incidents, which reads reach back 400 days. */
export const HOST_EVENT_KEEP_MS = 400 * 86_400_000;
/** A container or unit gone this long is forgotten (its rollups age out with their resolution). */
export const GONE_ITEM_KEEP_MS = 86_400_000;

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
    deleting(
      `DELETE FROM host_items WHERE (host, kind, name) IN (SELECT host, kind, name FROM host_items
         WHERE gone_at IS NOT NULL AND gone_at < ? LIMIT ?)`,
      now - GONE_ITEM_KEEP_MS,
    ),
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
 * Deletes what hosts keep beyond its time: rollups, agent logs, host events, items long gone, and what
 * removed hosts left. The pass runs in writer jobs of at most `chunkRows` rows and `PRUNE_CHUNK_MS`,
 * yielding to the event loop between them. Resolves with the rows deleted and the jobs it took.
 */
export async function pruneHosts(
  deps: Deps,
  chunkRows = PRUNE_CHUNK_ROWS,
): Promise<{ deleted: number; jobs: number }> {
  const now = deps.clock.now();
  return pruneInChunks(deps.store.writer, (db) => partsOf(db, now), chunkRows);
}

/**
 * Runs `pruneHosts` every hour on one clock timer, and deletes what a removed host left once its
 * removal commits (remove.ts) and at start (a removal a crash cut short). Passes run one after another.
 */
export function createHousekeeping(deps: Deps) {
  let timer: TimerHandle | null = null;
  let pass: Promise<void> = Promise.resolve();
  const then = (what: string, work: () => Promise<unknown>) => {
    pass = pass
      .then(work)
      .then(() => {})
      .catch((error: unknown) => deps.log.warn(what, { error: String(error) }));
    return pass;
  };
  const plan = () => {
    timer = deps.clock.setTimeout(() => {
      void then('host data not pruned', () => pruneHosts(deps)).finally(() => {
        if (timer !== null) plan();
      });
    }, HOUR_MS);
  };
  const purgeRemoved = () => then('removed hosts not purged', () => purgeRemovedHosts(deps));
  return {
    start() {
      if (exists(deps.store.read, 'SELECT 1 FROM hosts_removed')) void purgeRemoved();
      plan();
    },
    stop() {
      if (timer) deps.clock.clearTimeout(timer);
      timer = null;
    },
    /** A host's removal committed: its series, events and logs go now, in bounded jobs. */
    purgeRemoved,
    /** Resolves once the passes under way, if any, are done. */
    idle: () => pass,
  };
}
