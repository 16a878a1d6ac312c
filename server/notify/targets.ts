import type { DatabaseSync } from 'node:sqlite';
import { type ChannelKind, channelKinds } from '../../protocol/notify.ts';
import type { LiveConfig } from '../config/sections.ts';
import { all, json, mapper, nullable, oneOf, text } from '../store/rows.ts';
import type { ChannelTarget } from './channels/kind.ts';
import type { ChannelSettings } from './config.ts';

/**
 * The channels notifications go to: the `[[alert]]` channels of mon.toml, then those made in the
 * panel or the API (table `channels`, migration 011), one namespace of names. Settings are stored as
 * JSON without the secret, which has its own column.
 */

type StoredSettings = Omit<ChannelSettings, 'secret'>;

export const channelRow = mapper(
  { name: text, kind: oneOf(channelKinds), settings: json<StoredSettings>(), secret: nullable(text) },
  (r): ChannelTarget => ({ name: r.name, kind: r.kind, settings: { ...r.settings, secret: r.secret } }),
);

/** Channels made in the panel or the API, by name. */
export function panelChannels(db: DatabaseSync): ChannelTarget[] {
  return all(db, 'SELECT name, kind, settings, secret FROM channels ORDER BY name', channelRow);
}

/** Every channel: the file's first (in file order), then the panel's. */
export function allChannels(db: DatabaseSync, config: Pick<LiveConfig, 'alerts'>): ChannelTarget[] {
  const file = config.alerts.map((a) => ({ name: a.name, kind: a.kind, settings: a.settings }));
  return [...file, ...panelChannels(db)];
}

/** The channel named `name`, from the file or the panel, or null. */
export function channelNamed(
  db: DatabaseSync,
  config: Pick<LiveConfig, 'alerts'>,
  name: string,
): ChannelTarget | null {
  return allChannels(db, config).find((c) => c.name === name) ?? null;
}

/** The stored form of a channel's settings: JSON without the secret. */
export function storedSettings(settings: ChannelSettings): { settings: string; secret: string | null } {
  const { secret, ...rest } = settings;
  return { settings: JSON.stringify(rest), secret };
}

export type { ChannelKind };
