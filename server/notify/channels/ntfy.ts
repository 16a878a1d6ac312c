import type { ChannelImpl } from './kind.ts';

/** The ntfy channel. */
export const ntfy: ChannelImpl = {
  edits: false,
  async send() {
    return { ok: false, permanent: true, error: 'ntfy channels are being built' };
  },
};
