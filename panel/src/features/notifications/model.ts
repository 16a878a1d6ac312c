import type { ChannelBody, ChannelKind, ChannelRead } from '../../../../protocol/notify.ts';

/**
 * The channel form without React: which fields each kind shows with their hints, the form's state
 * from a channel, the API body from the state, and the one-line summary of a channel in the list.
 */

export const kinds: ChannelKind[] = ['ntfy', 'webhook', 'slack', 'discord', 'telegram', 'email'];

/** The fields a form may show, by the API's names. */
export type FormField =
  | 'url'
  | 'secret'
  | 'chatId'
  | 'smtp'
  | 'tls'
  | 'username'
  | 'from'
  | 'to'
  | 'allowPrivate';

type KindInfo = {
  label: string;
  about: string;
  fields: FormField[];
  /** The secret can be removed (Telegram's bot token cannot). */
  secretOptional: boolean;
  /** The URL holds the credential (Slack, Discord): never shown, empty keeps it. */
  urlSecret: boolean;
  url?: { label: string; placeholder: string; hint: string };
  secret?: { label: string; hint: string };
};

export const kindInfo: Record<ChannelKind, KindInfo> = {
  ntfy: {
    label: 'ntfy',
    about: 'Push notifications through an ntfy server (ntfy.sh or your own).',
    fields: ['url', 'secret', 'allowPrivate'],
    secretOptional: true,
    urlSecret: false,
    url: { label: 'Topic URL', placeholder: 'https://ntfy.sh/my-topic', hint: 'The server and the topic.' },
    secret: { label: 'Access token', hint: 'Only for a topic that needs one.' },
  },
  webhook: {
    label: 'Webhook',
    about: 'A JSON POST to a URL of yours for each change.',
    fields: ['url', 'secret', 'allowPrivate'],
    secretOptional: true,
    urlSecret: false,
    url: { label: 'URL', placeholder: 'https://hooks.example.com/mon', hint: 'Receives the POST requests.' },
    secret: { label: 'Signing secret', hint: 'Requests are signed with it, so the receiver can check them.' },
  },
  slack: {
    label: 'Slack',
    about: 'A message in a Slack channel through an incoming webhook.',
    fields: ['url'],
    secretOptional: false,
    urlSecret: true,
    url: {
      label: 'Incoming webhook URL',
      placeholder: 'https://hooks.slack.com/services/…',
      hint: 'The URL is the credential: it is kept, never shown again.',
    },
  },
  discord: {
    label: 'Discord',
    about: 'A message in a Discord channel through a webhook.',
    fields: ['url'],
    secretOptional: false,
    urlSecret: true,
    url: {
      label: 'Webhook URL',
      placeholder: 'https://discord.com/api/webhooks/…',
      hint: 'The URL is the credential: it is kept, never shown again.',
    },
  },
  telegram: {
    label: 'Telegram',
    about: 'A message from your bot in a Telegram chat.',
    fields: ['secret', 'chatId'],
    secretOptional: false,
    urlSecret: false,
    secret: { label: 'Bot token', hint: 'From @BotFather, such as 123456:ABC-…' },
  },
  email: {
    label: 'Email',
    about: 'An email through your SMTP server.',
    fields: ['smtp', 'tls', 'username', 'secret', 'from', 'to', 'allowPrivate'],
    secretOptional: true,
    urlSecret: false,
    secret: { label: 'SMTP password', hint: 'Kept only with a username.' },
  },
};

export type ChannelForm = {
  name: string;
  kind: ChannelKind;
  url: string;
  /** A new secret; empty keeps the stored one. */
  secret: string;
  /** Remove the stored secret (where the kind can do without one). */
  removeSecret: boolean;
  chatId: string;
  smtp: string;
  /** '' selects by port. */
  tls: '' | 'true' | 'false';
  username: string;
  from: string;
  /** Addresses separated by commas or new lines. */
  to: string;
  allowPrivate: boolean;
};

export function emptyForm(kind: ChannelKind = 'ntfy'): ChannelForm {
  return {
    name: '',
    kind,
    url: '',
    secret: '',
    removeSecret: false,
    chatId: '',
    smtp: '',
    tls: '',
    username: '',
    from: '',
    to: '',
    allowPrivate: false,
  };
}

/** The form of a channel being edited: its settings as read, the secret and a secret URL left empty (kept). */
export function formOfChannel(channel: ChannelRead): ChannelForm {
  const s = channel.settings;
  const form = { ...emptyForm(channel.kind), name: channel.name };
  if (!s) return form;
  return {
    ...form,
    url: s.url ?? '',
    chatId: s.chatId ?? '',
    smtp: s.smtp ?? '',
    tls: s.tls === null ? '' : s.tls ? 'true' : 'false',
    username: s.username ?? '',
    from: s.from ?? '',
    to: s.to.join(', '),
    allowPrivate: s.allowPrivate,
  };
}

const text = (value: string) => (value.trim() === '' ? null : value.trim());

/**
 * The API body of the form: only the kind's fields. An empty secret is null, which keeps a stored one;
 * "remove" sends "" (on a new channel there is nothing to remove). An empty Slack or Discord URL is
 * null, which keeps the stored URL.
 */
export function bodyOfForm(form: ChannelForm): ChannelBody {
  const info = kindInfo[form.kind];
  const shown = new Set(info.fields);
  const body: ChannelBody = { name: form.name.trim(), kind: form.kind };
  if (shown.has('url')) body.url = text(form.url);
  if (shown.has('secret')) body.secret = form.removeSecret ? '' : form.secret === '' ? null : form.secret;
  if (shown.has('chatId')) body.chatId = text(form.chatId);
  if (shown.has('smtp')) body.smtp = text(form.smtp);
  if (shown.has('tls')) body.tls = form.tls === '' ? null : form.tls === 'true';
  if (shown.has('username')) body.username = text(form.username);
  if (shown.has('from')) body.from = text(form.from);
  if (shown.has('to')) {
    const to = form.to
      .split(/[\s,;]+/)
      .map((a) => a.trim())
      .filter(Boolean);
    body.to = to.length > 0 ? to : null;
  }
  if (shown.has('allowPrivate')) body.allowPrivate = form.allowPrivate;
  return body;
}

/** What a stored secret goes with: where the form says it must be given again once that changes. */
export const secretPlace: Partial<Record<ChannelKind, string>> = {
  ntfy: 'URL',
  webhook: 'URL',
  email: 'SMTP server',
};

/**
 * Whether the stored secret of `channel` still goes where the form points (as the server decides):
 * the same origin for ntfy and webhooks, the same SMTP server for email. Left empty otherwise, the
 * save is refused: the secret must be given again for the new host.
 */
export function keepsStoredSecret(channel: ChannelRead, form: ChannelForm): boolean {
  const s = channel.settings;
  if (!s || !channel.hasSecret) return true;
  if (channel.kind === 'email') {
    const smtp = form.smtp.trim().toLowerCase();
    return smtp === '' || s.smtp?.trim().toLowerCase() === smtp;
  }
  if (!secretPlace[channel.kind]) return true;
  const origin = (url: string | null) => (url && URL.canParse(url) ? new URL(url).origin : null);
  // A URL still being typed is not a move yet: the field's own error comes first.
  return !URL.canParse(form.url.trim()) || origin(s.url) === origin(form.url.trim());
}

/** Where a channel sends, in a few words: the ntfy topic, the webhook's host, the recipients. */
export function targetSummary(channel: ChannelRead): string {
  const s = channel.settings;
  if (!s) return '';
  switch (channel.kind) {
    case 'ntfy': {
      const topic = s.url ? new URL(s.url).pathname.replace(/^\/+/, '') : '';
      return `${topic} on ${s.urlHost ?? '?'}`;
    }
    case 'webhook':
      return s.url ?? '';
    case 'slack':
    case 'discord':
      return s.urlHost ? `webhook on ${s.urlHost}` : '';
    case 'telegram':
      return s.chatId ? `chat ${s.chatId}` : '';
    case 'email':
      return `${s.to.join(', ')} via ${s.smtp ?? '?'}`;
  }
}
