import type { ChannelKind } from '../../../protocol/notify.ts';
import { discord } from './discord.ts';
import { email } from './email.ts';
import type { ChannelImpl } from './kind.ts';
import { ntfy } from './ntfy.ts';
import { slack } from './slack.ts';
import { telegram } from './telegram.ts';
import { webhook } from './webhook.ts';

/** Every channel kind with its implementation: a kind without one does not compile. */
export const channelImpls: Record<ChannelKind, ChannelImpl> = {
  ntfy,
  webhook,
  slack,
  discord,
  telegram,
  email,
};
