import { z } from 'zod';
import { type ChannelKind, channelKinds, unsetChannelSettings } from '../../protocol/notify.ts';
import type { PathError } from '../config/paths.ts';
import { type Built, configSection, type SecretSpot, type TomlTable } from '../config/section.ts';
import {
  type ChannelField,
  channelNameSchema,
  channelValues,
  fieldProblems,
  urlIsSecret,
} from './channel-body.ts';

/**
 * The `[[alert]]` section of mon.toml: notification channels. `type` selects the keys a channel takes;
 * secrets (tokens, passwords, Slack and Discord webhook URLs) stay in memory and leave only as
 * `${NAME}` references in the export. docs/configuration.md lists the keys.
 */

export { type ChannelKind, channelKinds, urlIsSecret };

/** Channel settings in the API's field names; keys a kind does not use are null (`to` empty). */
export type ChannelSettings = {
  url: string | null;
  /** ntfy token, webhook signing secret, Telegram bot token or SMTP password. Never leaves memory. */
  secret: string | null;
  chatId: string | null;
  smtp: string | null;
  /** null selects by port (465 = TLS, otherwise STARTTLS when offered). */
  tls: boolean | null;
  username: string | null;
  from: string | null;
  to: string[];
  allowPrivate: boolean;
};

/** Channel settings with `given` set and nothing else (no secret). */
export function channelSettings(given: Partial<ChannelSettings> = {}): ChannelSettings {
  return { ...unsetChannelSettings(), secret: null, ...given };
}

/** An `[[alert]]` notification channel of the file. Secret values stay in memory only. */
export type FileAlert = { index: number; name: string; kind: ChannelKind; settings: ChannelSettings };

const fileAlertSchema = z.strictObject({
  name: channelNameSchema.optional(),
  type: z.enum(channelKinds),
  url: channelValues.url.optional(),
  token: channelValues.secret.optional(),
  secret: channelValues.secret.optional(),
  bot_token: channelValues.secret.optional(),
  chat_id: z.union([channelValues.chatId, z.number().int()], { error: 'must be a chat id' }).optional(),
  smtp: channelValues.smtp.optional(),
  tls: channelValues.tls.optional(),
  username: channelValues.username.optional(),
  password: channelValues.secret.optional(),
  from: channelValues.from.optional(),
  to: channelValues.to.optional(),
  allow_private: channelValues.allowPrivate.optional(),
});
export type FileAlertInput = z.infer<typeof fileAlertSchema>;

type SecretKey = 'token' | 'secret' | 'bot_token' | 'password';

/** The key that holds each type's secret in the file. */
export const secretKeyOf: Record<ChannelKind, SecretKey | null> = {
  ntfy: 'token',
  webhook: 'secret',
  slack: null,
  discord: null,
  telegram: 'bot_token',
  email: 'password',
};

/**
 * Default name of an alert without `name`: its type for the first of that type in the file, then
 * `type-2`, `type-3`... (these file-style names are refused by the API for panel channels).
 */
export function defaultAlertName(alerts: FileAlertInput[], index: number): string {
  const kind = alerts[index]!.type;
  const nth = alerts.slice(0, index + 1).filter((a) => a.type === kind).length;
  return nth === 1 ? kind : `${kind}-${nth}`;
}

/** The file's key of each channel field but the secret, whose key depends on the type (`secretKeyOf`). */
const fileKeyOf: Record<Exclude<ChannelField, 'secret'>, keyof FileAlertInput> = {
  url: 'url',
  chatId: 'chat_id',
  smtp: 'smtp',
  tls: 'tls',
  username: 'username',
  from: 'from',
  to: 'to',
  allowPrivate: 'allow_private',
};
const secretKeys: readonly string[] = ['token', 'secret', 'bot_token', 'password'] satisfies SecretKey[];

/**
 * Validates the keys of `[[alert]]` number `index` for its type (by the rules the API uses too:
 * channel-body.ts) and builds the channel settings.
 */
export function fileAlertToChannel(
  alerts: FileAlertInput[],
  index: number,
): { alert?: FileAlert; errors: PathError[] } {
  const input = alerts[index]!;
  const kind = input.type;
  const secretKey = secretKeyOf[kind];
  const keyOf = (field: ChannelField) => (field === 'secret' ? (secretKey ?? 'secret') : fileKeyOf[field]);
  const errors: PathError[] = [];
  const given: ChannelField[] = [];
  for (const key of Object.keys(input) as (keyof FileAlertInput)[]) {
    if (key === 'name' || key === 'type' || input[key] === undefined) continue;
    if (secretKeys.includes(key)) {
      // Each type names its secret its own way; another type's name is a key this one does not use.
      if (key === secretKey) given.push('secret');
      else errors.push({ path: ['alert', index, key], message: `not used by ${kind} alerts` });
    } else {
      const field = (Object.keys(fileKeyOf) as (keyof typeof fileKeyOf)[]).find((f) => fileKeyOf[f] === key);
      if (field) given.push(field);
    }
  }
  for (const { field, message } of fieldProblems(kind, given, 'alerts')) {
    errors.push({ path: ['alert', index, keyOf(field)], message });
  }
  if (errors.length > 0) return { errors };
  const settings: ChannelSettings = {
    url: input.url ?? null,
    secret: secretKey ? (input[secretKey] ?? null) : null,
    chatId: input.chat_id === undefined ? null : String(input.chat_id),
    smtp: input.smtp ?? null,
    tls: input.tls ?? null,
    username: input.username ?? null,
    from: input.from ?? null,
    to: input.to ?? [],
    allowPrivate: input.allow_private ?? false,
  };
  const name = input.name ?? defaultAlertName(alerts, index);
  return { alert: { index, name, kind, settings }, errors };
}

/**
 * The `[[alert]]` table of a channel (of the file, or made in the panel for the export): the inverse of
 * `fileAlertToChannel`, with `name` always set.
 */
export function channelToFileAlert(alert: Omit<FileAlert, 'index'>): Record<string, unknown> {
  const s = alert.settings;
  const out: Record<string, unknown> = { name: alert.name, type: alert.kind };
  if (s.url !== null) out.url = s.url;
  if (s.chatId !== null) out.chat_id = s.chatId;
  if (s.smtp !== null) out.smtp = s.smtp;
  if (s.tls !== null) out.tls = s.tls;
  if (s.username !== null) out.username = s.username;
  if (s.from !== null) out.from = s.from;
  if (s.to.length > 0) out.to = [...s.to];
  if (s.allowPrivate) out.allow_private = true;
  const secretKey = secretKeyOf[alert.kind];
  if (secretKey && s.secret !== null) out[secretKey] = s.secret;
  return out;
}

export const kindLabel: Record<ChannelKind, string> = {
  ntfy: 'ntfy',
  webhook: 'webhook',
  slack: 'Slack',
  discord: 'Discord',
  telegram: 'Telegram',
  email: 'email',
};

const secretAbout: Record<SecretKey, string> = {
  token: 'Access token',
  secret: 'Signing secret',
  bot_token: 'Bot token',
  password: 'SMTP password',
};

export const alertSection = configSection({
  key: 'alerts',
  tables: { alert: z.array(fileAlertSchema).default([]) },
  build(input): Built<FileAlert[]> {
    const value: FileAlert[] = [];
    const errors: PathError[] = [];
    input.alert.forEach((_, i) => {
      const result = fileAlertToChannel(input.alert, i);
      errors.push(...result.errors);
      if (result.alert) value.push(result.alert);
    });
    return { value, errors };
  },
  empty: (): FileAlert[] => [],
  toToml(value, { channels }): TomlTable {
    // Channels made in the panel follow the file's own, so that the export holds every channel.
    const all = [...value, ...channels];
    return all.length > 0 ? { alert: all.map(channelToFileAlert) } : {};
  },
  secrets(tree) {
    const spots: SecretSpot[] = [];
    (tree.alert as TomlTable[] | undefined)?.forEach((alert, i) => {
      const kind = alert.type as ChannelKind;
      const name = String(alert.name);
      const label = `${kindLabel[kind]} alert ${name}`;
      const secretKey = secretKeyOf[kind];
      if (secretKey)
        spots.push({
          path: ['alert', i, secretKey],
          suggested: `MON_ALERT_${name}_${secretKey}`,
          about: `${secretAbout[secretKey]} of ${label}`,
        });
      if (urlIsSecret(kind))
        spots.push({
          path: ['alert', i, 'url'],
          suggested: `MON_ALERT_${name}_URL`,
          about: `Webhook URL of ${label}`,
        });
    });
    return spots;
  },
  names: (value) => ({ alerts: value.map((a) => a.name) }),
});
