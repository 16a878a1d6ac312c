import type { ChannelImpl } from './kind.ts';

/** The webhook channel. */
export const webhook: ChannelImpl = {
  edits: false,
  async send() {
    return { ok: false, permanent: true, error: 'webhook channels are being built' };
  },
};
