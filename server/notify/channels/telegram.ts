import type { ChannelImpl } from './kind.ts';

/** The telegram channel. */
export const telegram: ChannelImpl = {
  edits: false,
  async send() {
    return { ok: false, permanent: true, error: 'telegram channels are being built' };
  },
};
