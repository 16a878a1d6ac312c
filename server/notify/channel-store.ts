import type { DatabaseSync } from 'node:sqlite';
import { all, mapper, one, text } from '../store/rows.ts';
import { statement } from '../store/statements.ts';
import type { ChannelTarget } from './channels/kind.ts';
import type { ChannelSettings } from './config.ts';
import { channelRow, storedSettings } from './targets.ts';

/**
 * The `channels` table (migration 011) as the channel routes change it: channels made in the panel or
 * the API. Reads for delivery are in targets.ts; the secret has its own column and leaves only to send.
 */

const nameRow = mapper({ name: text });

/** The panel channel named `name`, with its secret, or null. */
export function storedChannel(db: DatabaseSync, name: string): ChannelTarget | null {
  return (
    one(db, 'SELECT name, kind, settings, secret FROM channels WHERE name = ?', channelRow, name) ?? null
  );
}

/** Names of the channels made in the panel: mon.toml's `[[alert]]` tables must not take them. */
export function panelChannelNames(db: DatabaseSync): string[] {
  return all(db, 'SELECT name FROM channels ORDER BY name', nameRow).map((r) => r.name);
}

export function insertChannel(
  db: DatabaseSync,
  channel: ChannelTarget,
  by: { createdBy: string; now: number },
): void {
  const { settings, secret } = storedSettings(channel.settings);
  statement(
    db,
    `INSERT INTO channels (name, kind, settings, secret, created_at, created_by, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
  ).run(channel.name, channel.kind, settings, secret, by.now, by.createdBy, by.now);
}

export function updateChannel(db: DatabaseSync, name: string, settings: ChannelSettings, now: number): void {
  const stored = storedSettings(settings);
  statement(db, 'UPDATE channels SET settings = ?, secret = ?, updated_at = ? WHERE name = ?').run(
    stored.settings,
    stored.secret,
    now,
    name,
  );
}

/** Removes a panel channel; false when there was none of that name. */
export function deleteChannel(db: DatabaseSync, name: string): boolean {
  return statement(db, 'DELETE FROM channels WHERE name = ?').run(name).changes > 0;
}
