import type { ChannelTarget } from './channels/kind.ts';

/**
 * The secrets of notification channels and the watchdog: which values are secret, how text that may
 * quote them (a receiver's answer, a network error) hides them, and where a stored secret may go.
 * Reads, logs, the timeline, test results and the export never show one.
 */

/** What stands in for a secret in an error. */
const SECRET_MARK = '[secret]';

/**
 * Every secret `channel` holds: its secret (ntfy token, webhook signing secret, Telegram bot token,
 * SMTP password); for Slack and Discord the webhook URL, its path and its last part (the token), each
 * of which an answer may quote alone.
 */
export function secretsOf(channel: ChannelTarget): string[] {
  const { secret, url } = channel.settings;
  const secrets = secret ? [secret] : [];
  if (url && (channel.kind === 'slack' || channel.kind === 'discord')) {
    secrets.push(url);
    if (URL.canParse(url)) {
      const { pathname } = new URL(url);
      const token = pathname.split('/').filter(Boolean).at(-1);
      if (pathname.length > 1) secrets.push(pathname);
      if (token) secrets.push(token);
    }
  }
  return secrets;
}

/**
 * `text` with every one of `secrets` replaced by SECRET_MARK, as written and URL-encoded (a bot token
 * in a request path). Every secret counts, however short: a cut word is better than a leaked one.
 * Longer ones first, so that a URL goes whole rather than around its token.
 */
export function hideSecrets(text: string, secrets: readonly (string | null | undefined)[]): string {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (!secret) continue;
    forms.add(secret);
    forms.add(encodeURIComponent(secret));
    forms.add(encodeURI(secret));
  }
  if (forms.size === 0) return text;
  // One pass, so that a secret found inside a mark already written is not marked again.
  const alternatives = [...forms].sort((a, b) => b.length - a.length).map(escapeRegExp);
  return text.replace(new RegExp(alternatives.join('|'), 'g'), SECRET_MARK);
}

const escapeRegExp = (text: string) => text.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/**
 * Whether a credential stored for `before` may go with a request to `after`: only to the same origin
 * (scheme, host and port). Whoever may change a URL without reading secrets must not be able to send
 * a stored one to a host of their own.
 */
export function sameOrigin(before: string | null, after: string | null): boolean {
  if (before === null || after === null || !URL.canParse(before) || !URL.canParse(after)) return false;
  return new URL(before).origin === new URL(after).origin;
}

/** The detail when a stored secret would go to another host: it has to be given again. */
export const movedSecret = 'required when the URL moves to another host';

/**
 * Whether a URL holds a user name or password (`https://user:pass@host/`). Such URLs are refused where
 * a secret goes with them: reads, the panel and the export show the URL.
 */
export function holdsUserInfo(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  return url.username !== '' || url.password !== '';
}

export const userInfoRefused = 'must not hold a user name or password';
