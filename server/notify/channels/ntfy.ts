import type { NotifyChange } from '../../../protocol/notify.ts';
import { outboundRequest } from '../../http/outbound.ts';
import { clip, clipBytes, detailText, headline } from '../text.ts';
import { type ChannelImpl, resultOfError, resultOfStatus, withoutSecrets } from './kind.ts';

/**
 * ntfy (docs/notifications.md, "ntfy"): the message text POSTed to the topic URL, with its headline,
 * priority, tags and link in headers. ntfy cannot edit a message: acknowledgement and resolution are
 * messages of their own.
 */

/** ntfy turns a longer message into an attachment: the text stays within it. */
export const ntfyMessageBytes = 4096;

/** An incident opens loud and a forgotten one gets louder; the rest is news, not an alarm. */
const priorityOf: Record<NotifyChange | 'test', string> = {
  opened: 'high',
  reminder: 'urgent',
  acknowledged: 'low',
  resolved: 'default',
  test: 'default',
};

/** Emoji shortcodes ntfy shows before the title. */
const tagsOf: Record<NotifyChange | 'test', string> = {
  opened: 'rotating_light',
  reminder: 'alarm_clock',
  acknowledged: 'eyes',
  resolved: 'white_check_mark',
  test: 'test_tube',
};

/**
 * A header value ntfy reads back as `text`: as it is when it is printable ASCII, otherwise as RFC 2047
 * encoded-words (`=?UTF-8?B?…?=`, which ntfy decodes in every header), each at most 75 characters
 * and holding whole characters. Text that looks like an encoded-word is encoded too, so that ntfy
 * shows it as written.
 */
export function headerText(text: string): string {
  if (/^[\x20-\x7e]*$/.test(text) && !text.includes('=?')) return text;
  const words: string[] = [];
  let chunk = '';
  // 45 bytes make 60 base64 characters: with "=?UTF-8?B?" and "?=", 72 in all.
  for (const char of text) {
    if (Buffer.byteLength(chunk + char) > 45) {
      words.push(chunk);
      chunk = '';
    }
    chunk += char;
  }
  words.push(chunk);
  return words.map((word) => `=?UTF-8?B?${Buffer.from(word).toString('base64')}?=`).join(' ');
}

export const ntfy: ChannelImpl = {
  async send({ channel, message, signal, dnsServers }) {
    const { url, secret, allowPrivate } = channel.settings;
    if (!url) return { ok: false, permanent: true, error: 'the channel has no topic URL' };
    if (secret !== null && !/^[\x21-\x7e]+$/.test(secret))
      return { ok: false, permanent: true, error: 'the access token holds characters a header cannot carry' };
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      // The X- names: a proxy in front of ntfy may set the plain `Priority` header (RFC 9218) itself.
      'x-title': headerText(clip(headline(message), 250)),
      'x-priority': priorityOf[message.change],
      'x-tags': tagsOf[message.change],
    };
    if (message.url) headers['x-click'] = headerText(message.url);
    if (secret) headers.authorization = `Bearer ${secret}`;
    const body = clipBytes(detailText(message, 10, 300), ntfyMessageBytes);
    try {
      const answer = await outboundRequest({
        url,
        method: 'POST',
        headers,
        body,
        allowPrivate,
        signal,
        dnsServers,
      });
      const result = resultOfStatus('ntfy', answer.status, answer.body, answer.headers['retry-after']);
      return withoutSecrets(result, channel);
    } catch (error) {
      return withoutSecrets(resultOfError(error), channel);
    }
  },
};
