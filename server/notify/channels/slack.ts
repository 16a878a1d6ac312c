import { outboundRequest } from '../../http/outbound.ts';
import type { Message } from '../message.ts';
import { alertLine, causeLine, clip, evidenceLines, headline, moreAlerts, stateLine } from '../text.ts';
import {
  type ChannelImpl,
  privateAllowedUnder,
  resultOfError,
  resultOfStatus,
  withoutSecrets,
} from './kind.ts';

/**
 * Slack (docs/notifications.md, "Slack"): a message with blocks POSTed to an incoming webhook.
 * Incoming webhooks cannot edit what they posted: acknowledgement and resolution are new messages.
 */

/** Slack's limits: header text, section and context text, button URL, blocks in a message. */
export const slackLimits = { header: 150, text: 3000, url: 3000, blocks: 50 } as const;

/** Alerts listed in a message (then "and 50 more"), and the characters of each line. */
const maxAlerts = 10;
const maxLine = 280;

/** `text` as Slack mrkdwn shows it literally: `&`, `<` and `>` are control characters there. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** `text` escaped and cut to `max` characters without leaving half an entity ("&am…"). */
function mrkdwn(text: string, max = slackLimits.text): string {
  const cut = clip(escapeMrkdwn(text), max);
  return cut.endsWith('…') ? cut.replace(/&[a-z]*…$/, '…') : cut;
}

type Block = Record<string, unknown>;

/** The message as Slack blocks: headline, state and alerts, likely cause and evidence, a button. */
export function slackBlocks(m: Message): Block[] {
  const blocks: Block[] = [
    {
      type: 'header',
      text: { type: 'plain_text', text: clip(headline(m), slackLimits.header), emoji: true },
    },
  ];
  const lines = [stateLine(m)];
  const shown = m.failing.slice(0, maxAlerts);
  if (shown.length > 0) lines.push('');
  for (const a of shown) lines.push(`• ${clip(alertLine(a), maxLine)}`);
  const more = moreAlerts(m, shown.length);
  if (more && shown.length > 0) lines.push(`• ${more}`);
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mrkdwn(lines.join('\n')) } });
  const cause = causeLine(m);
  if (cause) {
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text: mrkdwn(cause) } });
    const evidence = evidenceLines(m).map((line) => clip(line, maxLine));
    if (evidence.length > 0)
      blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: mrkdwn(evidence.join('\n')) }] });
  }
  if (m.url && m.url.length <= slackLimits.url)
    blocks.push({
      type: 'actions',
      elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open incident' }, url: m.url }],
    });
  return blocks.slice(0, slackLimits.blocks);
}

export const slack: ChannelImpl = {
  async send({ channel, message, bases, signal, dnsServers }) {
    const { url } = channel.settings;
    if (!url) return { ok: false, permanent: true, error: 'the channel has no webhook URL' };
    const body = JSON.stringify({ text: mrkdwn(headline(message)), blocks: slackBlocks(message) });
    try {
      const answer = await outboundRequest({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8' },
        body,
        // Slack channels have no allow_private: Slack is on the internet. Only a receiver that tests
        // gave as the Slack base (`bases.slack` other than Slack's own) is reached on loopback.
        allowPrivate: privateAllowedUnder(url, 'slack', bases),
        signal,
        dnsServers,
      });
      const result = resultOfStatus('Slack', answer.status, answer.body, answer.headers['retry-after']);
      // The webhook URL is the credential: never quoted, even when the answer echoes it.
      return withoutSecrets(result, channel);
    } catch (error) {
      return withoutSecrets(resultOfError(error), channel);
    }
  },
};
