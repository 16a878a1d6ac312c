import type { FastifyInstance } from 'fastify';
import type { SettingsRead } from '../../protocol/notify.ts';
import type { Deps } from '../deps.ts';
import { allChannels } from '../notify/targets.ts';
import { windowsOf } from './read.ts';

/**
 * `GET /api/v1/settings` as far as windows go: silences, maintenance windows and the ids in force; the
 * channels by name and kind only, never their settings. The channel routes' settings read replaces it.
 */
export function registerSettingsRead(app: FastifyInstance, deps: Deps): void {
  app.get('/api/v1/settings', async (): Promise<SettingsRead> => {
    const db = deps.store.read;
    const now = deps.clock.now();
    const config = deps.config.current();
    const silences = windowsOf(db, 'silence', now);
    const maintenance = windowsOf(db, 'maintenance', now);
    const fileNames = new Set(config.alerts.map((a) => a.name));
    return {
      channels: allChannels(db, config).map((c) => ({
        name: c.name,
        kind: c.kind,
        managed: fileNames.has(c.name),
        settings: null,
        hasSecret: null,
      })),
      silences,
      maintenance,
      holds: {
        silences: silences.filter((w) => w.active).map((w) => w.id),
        maintenance: maintenance.filter((w) => w.active).map((w) => w.id),
      },
    };
  });
}
