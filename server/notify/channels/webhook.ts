import { outboundRequest } from '../../http/outbound.ts';
import { type ChannelImpl, resultOfError, resultOfStatus } from './kind.ts';

/** The webhook channel: the message as JSON, POSTed to the channel's URL. */
export const webhook: ChannelImpl = {
  edits: false,
  async send({ channel, message, messageId, signal }) {
    try {
      const answer = await outboundRequest({
        url: channel.settings.url ?? '',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'webhook-id': messageId },
        body: JSON.stringify(message),
        allowPrivate: channel.settings.allowPrivate,
        signal,
      });
      return resultOfStatus('webhook', answer.status, answer.body, answer.headers['retry-after']);
    } catch (error) {
      return resultOfError(error);
    }
  },
};
