import type { ChannelImpl } from './kind.ts';

/** The slack channel. */
export const slack: ChannelImpl = {
  edits: false,
  async send() {
    return { ok: false, permanent: true, error: 'slack channels are being built' };
  },
};
