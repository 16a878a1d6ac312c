import type { DatabaseSync } from 'node:sqlite';
import { type ChannelKind, channelKinds } from '../../protocol/notify.ts';
import type { LiveConfig } from '../config/sections.ts';
import { all, mapper, oneOf, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { Tx } from '../store/writer.ts';
import { dueColumns, dueRow, recordAttempt } from './attempts.ts';
import { allChannels } from './targets.ts';

/**
 * Notifications whose channel is gone are dropped, each with a row on its incident's timeline: when a
 * panel channel is deleted (in the job of the delete), and when a loaded mon.toml no longer has an
 * `[[alert]]` of that name or has it with another kind. A channel that is only missing (mon.toml has
 * an error, so mon runs on its last good configuration or, after a start, on an empty one) drops
 * nothing: the sender leaves its rows due until the channel is back.
 */

export const REMOVED = 'the channel was removed';
export const REPLACED = 'the channel was replaced by one of another kind';

const dueChannel = mapper({ channel: text, kind: oneOf(channelKinds) });

/** Drops the rows still due for `channel` (of `kind` only, when given). */
function dropDue(
  db: DatabaseSync,
  tx: Tx,
  channel: { name: string; kind?: ChannelKind },
  why: string,
  now: number,
): void {
  const rows = all(
    db,
    `SELECT ${dueColumns} FROM outbox
     WHERE state = 'due' AND channel = ? AND (? IS NULL OR kind = ?) ORDER BY id`,
    dueRow,
    channel.name,
    channel.kind ?? null,
    channel.kind ?? null,
  );
  for (const row of rows) recordAttempt(db, tx, row, row.attempts, { dropped: why }, now);
}

/** A panel channel was deleted: what waits for it is dropped, and its threads are forgotten. */
export function channelDeleted(db: DatabaseSync, tx: Tx, name: string, now: number): void {
  dropDue(db, tx, { name }, REMOVED, now);
  statement(db, 'DELETE FROM notify_threads WHERE channel = ?').run(name);
}

/**
 * Drops the rows due for channels that `config` (loaded without an error) and the panel no longer
 * have, or have with another kind.
 */
export function dropForChannelsGone(db: DatabaseSync, tx: Tx, config: LiveConfig, now: number): void {
  const kinds = new Map(allChannels(db, config).map((c) => [c.name, c.kind]));
  for (const { channel, kind } of all(
    db,
    "SELECT DISTINCT channel, kind FROM outbox WHERE state = 'due'",
    dueChannel,
  )) {
    const current = kinds.get(channel);
    if (current !== kind) {
      dropDue(db, tx, { name: channel, kind }, current === undefined ? REMOVED : REPLACED, now);
    }
  }
}
