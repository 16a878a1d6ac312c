import type { PathError } from './paths.ts';
import type { FileAlertInput } from './schema.ts';
import type { ChannelKind, ChannelSettings, FileAlert } from './service.ts';

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

/** The key that holds each type's secret in the file. */
export const secretKeyOf: Record<ChannelKind, Key | null> = {
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
    secret: secretKey ? ((input[secretKey] as string | undefined) ?? null) : null,
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
