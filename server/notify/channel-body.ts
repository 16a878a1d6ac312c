import { z } from 'zod';
import { type ChannelBody, type ChannelKind, channelKinds } from '../../protocol/notify.ts';
import { parseHostPort } from '../../protocol/targets.ts';
import { httpUrl, text } from '../config/fields.ts';
import { invalid } from '../problem.ts';
import type { ChannelSettings } from './config.ts';
import { holdsUserInfo, movedSecret, sameOrigin, userInfoRefused } from './secrets.ts';
// mon's words for every issue a schema here leaves to the fallback (unknown fields among them).
import '../../protocol/messages.ts';

/**
 * The rules of a notification channel, one place for both ways of making one: `[[alert]]` in mon.toml
 * (server/notify/config.ts, file key names) and `POST/PUT /api/v1/channels` (the API's field names).
 * Which fields each kind takes and requires, the values each field takes, and the names channels may
 * have (docs/notifications.md "Channels").
 */

/** A channel's settings by their API names; the file spells some differently (`chat_id`, `bot_token`). */
export type ChannelField = keyof ChannelSettings;

/** lowercase letters, digits and hyphens, at most 60 characters, starting with a letter or digit. */
export const channelNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,59}$/, 'must be lowercase letters, digits and hyphens');

/**
 * The names mon gives `[[alert]]` tables without a `name`: the kind, or the kind and a number
 * (`email`, `email-2`). The API refuses them for its channels, so that a name given in the file later
 * never meets one made in the panel.
 */
export function isFileStyleName(name: string): boolean {
  const match = /^([a-z]+)(-\d+)?$/.exec(name);
  return match !== null && (channelKinds as readonly string[]).includes(match[1]!);
}

const email = z.string().trim().email('must be an email address');

/** The value each field takes, shared by the file's keys and the API's fields. */
export const channelValues = {
  // Reads, the panel and the export show a URL (but Slack's and Discord's): no credential in it.
  url: httpUrl.refine(
    (v) => !holdsUserInfo(v),
    `${userInfoRefused}; give the credential as the channel's secret`,
  ),
  secret: text(4096),
  chatId: text(100),
  smtp: z
    .string()
    .trim()
    .regex(/^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):\d{1,5}$/, 'must be host:port')
    .refine((v) => {
      const port = Number(v.slice(v.lastIndexOf(':') + 1));
      return port >= 1 && port <= 65535;
    }, 'port must be 1 to 65535'),
  tls: z.boolean(),
  username: text(320),
  from: email,
  to: z.array(email).min(1, 'must list at least one address'),
  allowPrivate: z.boolean(),
} satisfies Record<ChannelField, z.ZodType>;

/** Fields each kind takes; the first group is required. Keys a kind does not use are refused. */
export const fieldsOf: Record<ChannelKind, { required: ChannelField[]; optional: ChannelField[] }> = {
  ntfy: { required: ['url'], optional: ['secret', 'allowPrivate'] },
  webhook: { required: ['url'], optional: ['secret', 'allowPrivate'] },
  slack: { required: ['url'], optional: [] },
  discord: { required: ['url'], optional: [] },
  telegram: { required: ['secret', 'chatId'], optional: [] },
  email: { required: ['smtp', 'from', 'to'], optional: ['tls', 'username', 'secret', 'allowPrivate'] },
};

/** Slack and Discord webhook URLs carry their credential in the URL itself. */
export const urlIsSecret = (kind: ChannelKind) => kind === 'slack' || kind === 'discord';

/** Whether a kind has a secret it can do without (so that the API may remove it). */
export const secretIsOptional = (kind: ChannelKind) => fieldsOf[kind].optional.includes('secret');

/**
 * What is wrong with the fields `given` to a channel of `kind`, in order: fields it does not use, then
 * required fields missing, then a password without a username. `noun` names what is made ("alerts"
 * in the file, "channels" in the API): "not used by telegram alerts".
 */
export function fieldProblems(
  kind: ChannelKind,
  given: readonly ChannelField[],
  noun: string,
): { field: ChannelField; message: string }[] {
  const { required, optional } = fieldsOf[kind];
  const problems: { field: ChannelField; message: string }[] = [];
  for (const field of given) {
    if (!required.includes(field) && !optional.includes(field))
      problems.push({ field, message: `not used by ${kind} ${noun}` });
  }
  for (const field of required) {
    if (!given.includes(field)) problems.push({ field, message: `required for ${kind} ${noun}` });
  }
  if (kind === 'email' && given.includes('secret') && !given.includes('username'))
    problems.push({ field: 'secret', message: 'needs username' });
  return problems;
}

const nullable = <T extends z.ZodType>(schema: T) => schema.nullable().optional();

/** `POST /api/v1/channels` and `PUT /channels/{name}`: protocol/notify.ts ChannelBody. */
export const channelBodySchema = z.strictObject({
  name: channelNameSchema,
  kind: z.enum(channelKinds, {
    error: (issue) => (issue.input === undefined ? 'required' : `must be one of ${channelKinds.join(', ')}`),
  }),
  url: nullable(channelValues.url),
  // "" removes a stored secret (PUT); a secret is otherwise checked like the file's.
  secret: nullable(z.union([z.literal(''), channelValues.secret])),
  chatId: nullable(channelValues.chatId),
  smtp: nullable(channelValues.smtp),
  tls: nullable(channelValues.tls),
  username: nullable(channelValues.username),
  from: nullable(channelValues.from),
  to: nullable(channelValues.to),
  allowPrivate: nullable(channelValues.allowPrivate),
}) satisfies z.ZodType<ChannelBody>;

/**
 * The settings a valid body makes, or a 422 naming the field. `stored` are the settings of the channel
 * a PUT changes (null for a new one): `secret: null` or absent keeps its secret while it goes to the
 * same place (`keptSecret`), `""` removes it (only where the kind can do without one); for Slack and
 * Discord `url: null` keeps its URL. An email channel left without a username keeps no password.
 */
export function settingsOfBody(body: ChannelBody, stored: ChannelSettings | null): ChannelSettings {
  const { kind } = body;
  const given = <T>(value: T | null | undefined): T | null => (value === undefined ? null : value);
  const settings: ChannelSettings = {
    url: given(body.url) ?? (urlIsSecret(kind) ? (stored?.url ?? null) : null),
    secret: null,
    chatId: given(body.chatId),
    smtp: given(body.smtp),
    tls: given(body.tls),
    username: given(body.username),
    from: given(body.from),
    to: given(body.to) ?? [],
    allowPrivate: given(body.allowPrivate) ?? false,
  };
  if (body.secret === '') {
    if (stored?.secret && !secretIsOptional(kind))
      throw invalid('secret', `required for ${kind} channels; give a new one to replace it`);
  } else settings.secret = given(body.secret) ?? keptSecret(kind, stored, settings);
  const present = (Object.keys(channelValues) as ChannelField[]).filter((field) =>
    field === 'to'
      ? body.to != null
      : field === 'allowPrivate'
        ? body.allowPrivate != null
        : settings[field] !== null,
  );
  const problem = fieldProblems(kind, present, 'channels')[0];
  if (problem) throw invalid(problem.field, problem.message);
  return settings;
}

/**
 * The stored secret for a PUT that leaves it out, or null. It goes only where it went before: the
 * same origin for ntfy and webhooks, the same SMTP server for email (with a username, which it was
 * given for); Telegram's bot token goes to Telegram whatever changes. Whoever may change a channel
 * without reading its secret must not be able to send the secret to a host of their own: 422.
 */
function keptSecret(kind: ChannelKind, stored: ChannelSettings | null, next: ChannelSettings): string | null {
  if (!stored?.secret) return null;
  // Without a URL or server the body misses a required field, which is the error to answer.
  if (kind === 'email') {
    if (next.username === null) return null;
    if (next.smtp !== null && !sameServer(stored.smtp, next.smtp))
      throw invalid('secret', 'required when the SMTP server moves to another host');
  } else if (kind !== 'telegram' && next.url !== null && !sameOrigin(stored.url, next.url)) {
    throw invalid('secret', movedSecret);
  }
  return stored.secret;
}

/** Whether two `smtp` values name the same server: host names compare without case. */
function sameServer(a: string | null, b: string | null): boolean {
  const [x, y] = [a, b].map((v) => (v === null ? null : parseHostPort(v.trim())));
  return !!x && !!y && x.host.toLowerCase() === y.host.toLowerCase() && x.port === y.port;
}
