import type { DatabaseSync } from 'node:sqlite';
import type { LogFrame } from '../../protocol/agent.ts';
import { statement } from '../store/statements.ts';

/** The agent's log lines, attached to incidents: kept 7 days and at most this many per host (housekeeping.ts). */
export const AGENT_LOG_KEEP_MS = 7 * 86_400_000;
export const AGENT_LOG_MAX_LINES = 10_000;

/** Stores the lines of `log` frames, each at its own time (a batch is stored once: batches.ts). */
export function insertLogLines(db: DatabaseSync, host: string, frames: LogFrame[]): void {
  if (frames.length === 0) return;
  const insert = statement(db, 'INSERT INTO agent_logs (host, ts, level, text) VALUES (?, ?, ?, ?)');
  for (const frame of frames)
    for (const line of frame.lines) insert.run(host, line.ts, line.level, line.text);
}
