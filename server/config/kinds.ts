/** Value lists of mon.toml, in a leaf module so that schemas can use them while modules load. */
export const serviceTiers = ['critical', 'standard', 'low'] as const;
export type ServiceTier = (typeof serviceTiers)[number];

export const channelKinds = ['ntfy', 'webhook', 'slack', 'discord', 'telegram', 'email'] as const;
export type ChannelKind = (typeof channelKinds)[number];
