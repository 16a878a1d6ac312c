import type { DatabaseSync } from 'node:sqlite';
import type { LogFrame } from '../../protocol/agent.ts';
import { all, int, mapper, nullable, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/** The agent's log lines, attached to incidents: kept 7 days and at most this many per host. */
export const AGENT_LOG_KEEP_MS = 7 * 86_400_000;
export const AGENT_LOG_MAX_LINES = 10_000;

const newestRow = mapper({ ts: nullable(int) });

/**
 * Stores the lines of `log` frames; returns how many frames were sent again (every line of them
 * stored already: not newer than the host's newest stored line, from a batch the agent sent again
 * after an answer it did not get).
 */
export function insertLogLines(db: DatabaseSync, host: string, frames: LogFrame[]): number {
  if (frames.length === 0) return 0;
  let newest =
    one(db, 'SELECT max(ts) AS ts FROM agent_logs WHERE host = ?', newestRow, host)?.ts ??
    Number.NEGATIVE_INFINITY;
  const insert = statement(db, 'INSERT INTO agent_logs (host, ts, level, text) VALUES (?, ?, ?, ?)');
  let again = 0;
  for (const frame of frames) {
    let last = newest;
    for (const line of frame.lines) {
      if (line.ts <= newest) continue;
      insert.run(host, line.ts, line.level, line.text);
      last = Math.max(last, line.ts);
    }
    // Lines of one frame may share a millisecond: the cut moves once the whole frame is in.
    if (last > newest) newest = last;
    else if (frame.lines.length > 0) again++;
  }
  return again;
}

const hostRow = mapper({ host: text });

/** Drops lines older than 7 days, and each host's lines beyond its newest 10,000. */
export function pruneAgentLogs(db: DatabaseSync, now: number): void {
  statement(db, 'DELETE FROM agent_logs WHERE ts < ?').run(now - AGENT_LOG_KEEP_MS);
  const over = statement(
    db,
    `DELETE FROM agent_logs WHERE id IN (SELECT id FROM agent_logs WHERE host = ?
       ORDER BY ts DESC, id DESC LIMIT -1 OFFSET ${AGENT_LOG_MAX_LINES})`,
  );
  for (const { host } of all(db, 'SELECT DISTINCT host FROM agent_logs', hostRow)) over.run(host);
}
