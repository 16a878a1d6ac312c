import type { OutboundResponse } from '../../http/outbound.ts';
import type { Message } from '../message.ts';
import {
  alertName,
  alertState,
  causeLine,
  clip,
  evidenceLines,
  headline,
  moreAlerts,
  stateLine,
} from '../text.ts';
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
 * The Discord channel: one embed per message, posted to the channel's webhook URL. The incident's
 * first message is edited in place when it is acknowledged and resolved (its colour and state line
 * change); a reminder posts a new message, so that the channel notifies again.
 */
export const discord: ChannelImpl = {
  async send(input) {
    const url = input.channel.settings.url;
    if (!url || !URL.canParse(url)) return { ok: false, permanent: true, error: 'no valid webhook URL' };
    return withoutSecrets(await deliver(input, url), input.channel);
  },
};

/** Discord's limits on an embed, in characters. */
export const embedLimits = {
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  /** Title, description, field names and values and footer together. */
  total: 6000,
};

const colour: Record<Message['change'], number> = {
  opened: 0xd93025,
  reminder: 0xf29900,
  acknowledged: 0x1a73e8,
  resolved: 0x1e8e3e,
  test: 0x5f6368,
};

export type Embed = {
  title: string;
  description: string;
  url?: string;
  color: number;
  fields: { name: string; value: string; inline: boolean }[];
  timestamp: string;
  footer: { text: string };
};

/**
 * `text` as Discord's markdown shows it literally. Discord shows `\x` as `x` for any punctuation `x`,
 * so a backslash goes before each character that can start markup anywhere in a line (bold, italic,
 * underline and strike `* _ ~`, code `` ` ``, spoilers `|`, masked links `[ ]`, `<…>` links, mentions
 * and timestamps, the escape `\` itself), and before what starts markup at the start of a line:
 * headings `#`, subtext `-#`, lists `-`, `+`, `1.`, block quotes `>`. Within an `http(s)://` address,
 * only what could end or nest a link (`[ ]`, `|`, `` ` ``, `\`).
 */
export function escapeDiscord(text: string): string {
  return text
    .split(/(https?:\/\/[^\s<>]+)/)
    .map((part, i) =>
      // An address in the text (a detail's URL) stays a working link: Discord keeps a backslash inside
      // it, and reads no emphasis there; what could end or nest a link is still escaped.
      i % 2 === 1 ? part.replace(/[\\`|[\]]/g, '\\$&') : part.replace(/[\\*_~`|[\]<>]/g, '\\$&'),
    )
    .join('')
    .replace(/^([ \t]*)([#+-])/gm, '$1\\$2')
    .replace(/^([ \t]*\d+)([.)])/gm, '$1\\$2');
}

/**
 * A URL of evidence as a link that shows the whole address: within `<…>` Discord reads no markup, and
 * a URL as written by URL never holds `>` or a space. An unreadable one is shown as text.
 */
function discordLink(url: string): string {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  return parsed && /^https?:$/.test(parsed.protocol) ? `<${parsed.href}>` : escapeDiscord(url);
}

/**
 * The message as an embed: the headline as title (a link to the incident), the state and likely cause
 * as description, a field per failing alert while the limits allow, and "and N more" for the rest.
 * Every text from checks, agents, deploys and people is escaped (`escapeDiscord`) before it is cut,
 * but the title: Discord reads no markup in an embed's title (a link's text), and shows a backslash
 * there as written (`project\_web\_1`).
 */
export function embedOf(m: Message): Embed {
  const title = clip(headline(m), embedLimits.title);
  const footer = 'mon';
  const lines = [escapeDiscord(stateLine(m))];
  const cause = causeLine(m);
  if (cause) lines.push('', escapeDiscord(cause), ...evidenceLines(m, escapeDiscord, discordLink));
  // Kept free for the "and N more" line added once the fields are known.
  const moreRoom = `\n\nand ${m.alertCount} more`.length;
  let description = clip(lines.join('\n'), embedLimits.description - moreRoom);
  let total = title.length + description.length + footer.length + moreRoom;
  const fields: Embed['fields'] = [];
  for (const a of m.failing) {
    const field = {
      name: clip(escapeDiscord(alertName(a)), embedLimits.fieldName),
      value: clip(escapeDiscord(alertState(a)), embedLimits.fieldValue),
      inline: false,
    };
    const size = field.name.length + field.value.length;
    if (fields.length === embedLimits.fields || total + size > embedLimits.total) break;
    fields.push(field);
    total += size;
  }
  const more = moreAlerts(m, fields.length);
  if (more) description += `\n\n${more}`;
  return {
    title,
    description,
    ...(m.url ? { url: m.url } : {}),
    color: colour[m.change],
    fields,
    timestamp: new Date(m.ts).toISOString(),
    footer: { text: footer },
  };
}

async function deliver(input: SendInput, url: string): Promise<SendResult> {
  // Nobody is pinged by a name that check output happens to contain.
  const body = JSON.stringify({ embeds: [embedOf(input.message)], allowed_mentions: { parse: [] } });
  return postOrEdit(input, {
    post: () => platformRequest(input, 'discord', { url: postUrl(url), method: 'POST', body }),
    edit: (thread) =>
      platformRequest(input, 'discord', { url: messageUrl(url, thread), method: 'PATCH', body }),
    isGone: isUnknownMessage,
    resultOf,
  });
}

/** The webhook URL asking for the message in the answer (`wait=true`), whose id is the thread. */
function postUrl(url: string): string {
  const u = new URL(url);
  u.searchParams.set('wait', 'true');
  return u.toString();
}

/** `<webhook URL>/messages/<id>`, keeping a `thread_id` the URL may carry. */
function messageUrl(url: string, id: string): string {
  const u = new URL(url);
  u.pathname = `${u.pathname.replace(/\/$/, '')}/messages/${encodeURIComponent(id)}`;
  return u.toString();
}

type DiscordError = { message?: unknown; code?: unknown; retry_after?: unknown };

const errorOf = (body: string) => answerObject<DiscordError>(body);

/** Discord's "Unknown Message" (code 10008): the message to edit is gone; "Unknown Webhook" is 10015. */
function isUnknownMessage(answer: OutboundResponse): boolean {
  return answer.status === 404 && errorOf(answer.body).code === 10008;
}

function resultOf(answer: OutboundResponse, answerThread: boolean): SendResult {
  const said = errorOf(answer.body);
  if (answer.status >= 200 && answer.status < 300) {
    const id = (said as { id?: unknown }).id;
    return answerThread && typeof id === 'string' ? { ok: true, thread: id } : { ok: true };
  }
  const words =
    typeof said.message === 'string'
      ? `${said.message}${typeof said.code === 'number' ? ` (code ${said.code})` : ''}`
      : answer.body;
  const result = resultOfStatus('Discord', answer.status, words, answer.headers['retry-after']);
  // A 429's body says how long to wait to the millisecond, the header only in whole seconds.
  const wait = said.retry_after;
  if (!result.ok && typeof wait === 'number' && wait >= 0)
    return { ...result, retryAfterMs: Math.ceil(wait * 1000) };
  return result;
}
