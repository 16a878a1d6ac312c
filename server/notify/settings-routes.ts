import type { DatabaseSync } from 'node:sqlite';
import type { FastifyInstance } from 'fastify';
import type { ChannelRead, ChannelSettingsRead, SettingsRead } from '../../protocol/notify.ts';
import type { Principal } from '../auth/access.ts';
import type { LiveConfig } from '../config/sections.ts';
import type { Deps } from '../deps.ts';
import { windowsOf } from '../windows/read.ts';
import { urlIsSecret } from './channel-body.ts';
import type { ChannelTarget } from './channels/kind.ts';
import { allChannels } from './targets.ts';

/** `GET /api/v1/settings` (docs/notifications.md "Channels"): channels, silences, maintenance windows. */
export function registerSettings(app: FastifyInstance, deps: Deps): void {
  app.get(
    '/api/v1/settings',
    async (request): Promise<SettingsRead> =>
      readSettings(deps.store.read, deps.config.current(), deps.clock.now(), seesSettings(request.principal)),
  );
}

/** Admins and `write` tokens, who may change channels, see their settings (never a secret). */
export function seesSettings(principal: Principal | null): boolean {
  if (!principal) return false;
  return principal.kind === 'token' ? principal.scope === 'write' : principal.user.role === 'admin';
}

export function readSettings(
  db: DatabaseSync,
  config: Pick<LiveConfig, 'alerts'>,
  now: number,
  withSettings: boolean,
): SettingsRead {
  // The file's channels come first (allChannels).
  const channels = allChannels(db, config).map(
    (c, i): ChannelRead => ({
      name: c.name,
      kind: c.kind,
      managed: i < config.alerts.length,
      settings: withSettings ? settingsRead(c) : null,
      hasSecret: withSettings ? c.settings.secret !== null : null,
    }),
  );
  const silences = windowsOf(db, 'silence', now);
  const maintenance = windowsOf(db, 'maintenance', now);
  const inForce = (windows: typeof silences) => windows.filter((w) => w.active).map((w) => w.id);
  return {
    channels,
    silences,
    maintenance,
    holds: { silences: inForce(silences), maintenance: inForce(maintenance) },
  };
}

/** A channel's settings without its secret; a Slack or Discord URL is a secret, so only its host shows. */
function settingsRead(channel: ChannelTarget): ChannelSettingsRead {
  const s = channel.settings;
  return {
    url: urlIsSecret(channel.kind) ? null : s.url,
    urlHost: s.url === null ? null : hostOf(s.url),
    chatId: s.chatId,
    smtp: s.smtp,
    tls: s.tls,
    username: s.username,
    from: s.from,
    to: [...s.to],
    allowPrivate: s.allowPrivate,
  };
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
