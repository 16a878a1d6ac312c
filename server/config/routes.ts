import type { FastifyInstance } from 'fastify';
import type { ConfigExport, ConfigStatus } from '../../protocol/config.ts';
import type { ConfigService } from './service.ts';

/**
 * `GET /api/v1/config/status` → `{error, inForce}`: the current mon.toml error (string, one line per
 * problem, each `path: message`), or null when the file is fine; `inForce` says which configuration
 * runs: `file`, `lastGood` or `empty`.
 * `GET /api/v1/config/export` → `{toml, secrets}`: the whole configuration as mon.toml text; secrets are
 * `${NAME}` references listed in `secrets` as `{name, key, about}`, never their values.
 */
export function registerConfig(app: FastifyInstance, config: ConfigService): void {
  app.get('/api/v1/config/status', async (_request, reply): Promise<ConfigStatus> => {
    reply.header('Cache-Control', 'no-store');
    return { error: config.error(), inForce: config.inForce() };
  });

  app.get('/api/v1/config/export', async (_request, reply): Promise<ConfigExport> => {
    reply.header('Cache-Control', 'no-store');
    return config.export();
  });
}
