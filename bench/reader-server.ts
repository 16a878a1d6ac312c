import { join } from 'node:path';
import type { Principal } from '../server/auth/access.ts';
import { silentLog } from '../server/log.ts';
import { createServer, type ServerOptions } from '../server/start.ts';

const reader: Principal = { kind: 'token', tokenId: 'bench', scope: 'read', label: 'bench' };

/**
 * A server for a benchmark, in this process: data in `dir`, no log, and every request read as a
 * `read` token's (the benchmarks measure the work, not sign-in).
 */
export function readerServer(dir: string, options: Partial<ServerOptions> = {}) {
  return createServer({
    dataDir: dir,
    configPath: join(dir, 'mon.toml'),
    env: {},
    log: silentLog,
    authenticate: async () => reader,
    ...options,
  });
}
