import { settingsKey } from '../../lib/settings.ts';
import { overviewKeys } from '../overview/keys.ts';

/**
 * Query keys a channel change reloads: the settings read, which lists the channels (no stream key
 * names it), and the overview's warnings, which count them.
 */
export const channelKeys = {
  settings: settingsKey,
  warnings: overviewKeys.warnings,
};
