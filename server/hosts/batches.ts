import type { DatabaseSync } from 'node:sqlite';
import { REMEMBERED_BATCHES } from '../../protocol/agent.ts';
import { exists, int, nullable, scalar } from '../store/rows.ts';
import { statement } from '../store/statements.ts';

/**
 * Notes a host's batch id inside the writer job that stores the batch; false when the host sent it
 * before (its answer was lost, or two sends of it crossed): then nothing of it is stored again. Each
 * host's last `REMEMBERED_BATCHES` ids are kept.
 */
export function rememberBatch(db: DatabaseSync, host: string, batch: string): boolean {
  if (exists(db, 'SELECT 1 FROM agent_batches WHERE host = ? AND batch = ?', host, batch)) return false;
  const last = scalar(db, 'SELECT max(seq) FROM agent_batches WHERE host = ?', nullable(int), host) ?? 0;
  statement(db, 'INSERT INTO agent_batches (host, batch, seq) VALUES (?, ?, ?)').run(host, batch, last + 1);
  statement(db, 'DELETE FROM agent_batches WHERE host = ? AND seq <= ?').run(
    host,
    last + 1 - REMEMBERED_BATCHES,
  );
  return true;
}
