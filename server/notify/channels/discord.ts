import type { ChannelImpl } from './kind.ts';

/** The discord channel. */
export const discord: ChannelImpl = {
  edits: false,
  async send() {
    return { ok: false, permanent: true, error: 'discord channels are being built' };
  },
};
