import { z } from 'zod';
import { type ChannelKind, channelKinds } from '../../protocol/notify.ts';
import { httpUrl, text } from '../config/fields.ts';
import type { PathError } from '../config/paths.ts';
import { type Built, configSection, type SecretSpot, type TomlTable } from '../config/section.ts';

/**
 * The `[[alert]]` section of mon.toml: notification channels. `type` selects the keys a channel takes;
 * secrets (tokens, passwords, Slack and Discord webhook URLs) stay in memory and leave only as
 * `${NAME}` references in the export. docs/configuration.md lists the keys.
 */

export { type ChannelKind, channelKinds };

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

/** An `[[alert]]` notification channel of the file. Secret values stay in memory only. */
export type FileAlert = { index: number; name: string; kind: ChannelKind; settings: ChannelSettings };

export const alertNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,59}$/, 'must be lowercase letters, digits and hyphens');

const email = z.string().trim().email('must be an email address');

const fileAlertSchema = z.strictObject({
  name: alertNameSchema.optional(),
  type: z.enum(channelKinds),
  url: httpUrl.optional(),
  token: text(4096).optional(),
  secret: text(4096).optional(),
  bot_token: text(4096).optional(),
  chat_id: z.union([text(100), z.number().int()], { error: 'must be a chat id' }).optional(),
  smtp: z
    .string()
    .trim()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port')
    .refine((v) => {
      const port = Number(v.slice(v.lastIndexOf(':') + 1));
      return port >= 1 && port <= 65535;
    }, 'port must be 1 to 65535')
    .optional(),
  tls: z.boolean().optional(),
  username: text(320).optional(),
  password: text(4096).optional(),
  from: email.optional(),
  to: z.array(email).min(1, 'must list at least one address').optional(),
  allow_private: z.boolean().optional(),
});
export type FileAlertInput = z.infer<typeof fileAlertSchema>;

type Key = Exclude<keyof FileAlertInput, 'name' | 'type'>;

/** Keys each alert type takes; the first group is required. */
const keysOf: Record<ChannelKind, { required: Key[]; optional: Key[] }> = {
  ntfy: { required: ['url'], optional: ['token', 'allow_private'] },
  webhook: { required: ['url'], optional: ['secret', 'allow_private'] },
  slack: { required: ['url'], optional: [] },
  discord: { required: ['url'], optional: [] },
  telegram: { required: ['bot_token', 'chat_id'], optional: [] },
  email: { required: ['smtp', 'from', 'to'], optional: ['tls', 'username', 'password', 'allow_private'] },
};

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

/** Slack and Discord webhook URLs carry their credential in the URL itself. */
export const urlIsSecret = (kind: ChannelKind) => kind === 'slack' || kind === 'discord';

/**
 * Default name of an alert without `name`: its type for the first of that type in the file, then
 * `type-2`, `type-3`... (these file-style names are refused by the API for panel channels).
 */
export function defaultAlertName(alerts: FileAlertInput[], index: number): string {
  const kind = alerts[index]!.type;
  const nth = alerts.slice(0, index + 1).filter((a) => a.type === kind).length;
  return nth === 1 ? kind : `${kind}-${nth}`;
}

/** Validates the keys of `[[alert]]` number `index` for its type and builds the channel settings. */
export function fileAlertToChannel(
  alerts: FileAlertInput[],
  index: number,
): { alert?: FileAlert; errors: PathError[] } {
  const input = alerts[index]!;
  const kind = input.type;
  const { required, optional } = keysOf[kind];
  const errors: PathError[] = [];
  for (const key of Object.keys(input) as (keyof FileAlertInput)[]) {
    if (key === 'name' || key === 'type' || input[key] === undefined) continue;
    if (!required.includes(key) && !optional.includes(key)) {
      errors.push({ path: ['alert', index, key], message: `not used by ${kind} alerts` });
    }
  }
  for (const key of required) {
    if (input[key] === undefined)
      errors.push({ path: ['alert', index, key], message: `required for ${kind} alerts` });
  }
  if (input.password !== undefined && input.username === undefined) {
    errors.push({ path: ['alert', index, 'password'], message: 'needs username' });
  }
  if (errors.length > 0) return { errors };
  const secretKey = secretKeyOf[kind];
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

/** The `[[alert]]` table of a channel: the inverse of `fileAlertToChannel`, with `name` always set. */
export function channelToFileAlert(alert: FileAlert): Record<string, unknown> {
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
  toToml: (value): TomlTable => (value.length > 0 ? { alert: value.map(channelToFileAlert) } : {}),
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
