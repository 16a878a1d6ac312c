import type { ChannelImpl } from './kind.ts';

/** The email channel. */
export const email: ChannelImpl = {
  edits: false,
  async send() {
    return { ok: false, permanent: true, error: 'email channels are being built' };
  },
};
