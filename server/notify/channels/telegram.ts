import type { OutboundResponse } from '../../http/outbound.ts';
import type { Message } from '../message.ts';
import { bodyWithin, clip, escapeHtml, headline } from '../text.ts';
import { postOrEdit } from './edits.ts';
import {
  answerObject,
  type ChannelImpl,
  platformRequest,
  resultOfStatus,
  type SendInput,
  type SendResult,
  withoutSecrets,
} from './kind.ts';

/**
 * The Telegram channel: a message from the channel's bot to its chat through the Bot API, in Telegram's
 * HTML. The incident's first message is edited in place when it is acknowledged and resolved; a
 * reminder is a new message, so that the chat notifies again. The bot token is part of every API
 * address, so it is scrubbed from every error.
 */
export const telegram: ChannelImpl = {
  async send(input) {
    const { secret, chatId } = input.channel.settings;
    if (!secret || !chatId) return { ok: false, permanent: true, error: 'no bot token or chat id' };
    return withoutSecrets(await deliver(input, secret, chatId), input.channel);
  },
};

/** Telegram's limit on a message: characters shown, after tags and entities are parsed. */
export const textLimit = 4096;

/**
 * The message in Telegram's HTML: the headline in bold, linked to the incident, then the shared body
 * cut to what the limit leaves. Text is cut before it is escaped, so a cut never falls inside a tag
 * or an entity, and the limit counts what the chat shows.
 */
export function htmlOf(m: Message): string {
  const head = clip(headline(m), 256);
  const body = bodyWithin(m, textLimit - head.length - 1).join('\n');
  const title = m.url ? `<a href="${escapeHtml(m.url)}">${escapeHtml(head)}</a>` : escapeHtml(head);
  return `<b>${title}</b>\n${escapeHtml(body)}`;
}

async function deliver(input: SendInput, token: string, chatId: string): Promise<SendResult> {
  const text = htmlOf(input.message);
  const content = { chat_id: chatId, text, parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
  return postOrEdit(input, {
    post: () => call(input, token, 'sendMessage', content),
    edit(thread) {
      const messageId = Number(thread);
      if (!Number.isSafeInteger(messageId)) return null;
      return call(input, token, 'editMessageText', { ...content, message_id: messageId });
    },
    isGone,
    resultOf,
  });
}

function call(input: SendInput, token: string, method: string, body: object) {
  const url = `${input.bases.telegram.replace(/\/$/, '')}/bot${token}/${method}`;
  return platformRequest(input, 'telegram', { url, method: 'POST', body: JSON.stringify(body) });
}

/** A Bot API answer: `{ok: true, result}` or `{ok: false, error_code, description, parameters}`. */
type Said = {
  ok?: unknown;
  description?: unknown;
  result?: { message_id?: unknown };
  parameters?: { retry_after?: unknown };
};

const saidOf = (body: string) => answerObject<Said>(body);

function descriptionOf(answer: OutboundResponse): string {
  const { description } = saidOf(answer.body);
  return typeof description === 'string' ? description : '';
}

/** The message to edit is gone, or too old for the bot to edit. */
function isGone(answer: OutboundResponse): boolean {
  return (
    answer.status === 400 && /message to edit not found|message can't be edited/i.test(descriptionOf(answer))
  );
}

function resultOf(answer: OutboundResponse, answerThread: boolean): SendResult {
  const said = saidOf(answer.body);
  if (answer.status >= 200 && answer.status < 300 && said.ok !== false) {
    const id = said.result?.message_id;
    return answerThread && typeof id === 'number' ? { ok: true, thread: String(id) } : { ok: true };
  }
  const description = descriptionOf(answer);
  // An edit to the text the message already shows (a change sent twice): it says what it should.
  if (/message is not modified/i.test(description)) return { ok: true };
  const result = resultOfStatus(
    'Telegram',
    answer.status,
    description || answer.body,
    answer.headers['retry-after'],
  );
  const wait = said.parameters?.retry_after;
  if (!result.ok && typeof wait === 'number' && wait >= 0) return { ...result, retryAfterMs: wait * 1000 };
  return result;
}
