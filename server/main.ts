import { resolve } from 'node:path';
import { setupNotice } from './auth/setup-token.ts';
import { createLog } from './log.ts';
import { createServer, parseListen } from './start.ts';
import { DataDirLocked, lockDataDir } from './store/lock.ts';

// `npm start` (and the Dockerfile) run this with V8's young generation capped at 4 MB a half and the
// old generation let grow by half its live size between full collections: less CPU than
// --optimize-for-size, which compacts the heap again and again under load, and half the memory of V8's
// defaults. Figures in docs/operating.md, "Memory".

// The only file that reads process.env: everything else gets its settings passed in.
const env = process.env;
const log = createLog();
const dataDir = resolve(env.MON_DATA_DIR || './data');
const configPath = env.MON_CONFIG ? resolve(env.MON_CONFIG) : resolve(dataDir, 'mon.toml');
const { host, port } = parseListen(env.MON_LISTEN || '127.0.0.1:8080');

// Before anything runs: a second mon on this directory would run every check and send every
// notification again (store/lock.ts).
let lock: { release(): void };
try {
  lock = lockDataDir(dataDir);
} catch (error) {
  if (!(error instanceof DataDirLocked)) throw error;
  log.error(`${error.message}; not starting`, { dataDir });
  process.exit(1);
}
const server = await createServer({ dataDir, configPath, env, log });
await server.app.listen({ host, port });
const bound = server.app.server.address();
const shown = typeof bound === 'object' && bound ? bound : { address: host, port };
const hostText = shown.address.includes(':') ? `[${shown.address}]` : shown.address;
const address = `http://${hostText}:${shown.port}`;
log.info('mon is listening', { address, dataDir });
const setupToken = server.accounts.state.setupToken;
if (setupToken !== null) {
  // A browser cannot open 0.0.0.0 or [::]: on this machine it is localhost.
  const local = /^(0\.0\.0\.0|::)$/.test(shown.address) ? `http://localhost:${shown.port}` : address;
  const url = server.deps.config.current().server.url ?? local;
  process.stdout.write(setupNotice({ token: setupToken, url, dataDir, env }));
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info('stopping', { signal });
  // Hard limit: whatever happens, exit within 5 s of the signal.
  setTimeout(() => {
    log.error('shutdown took too long; exiting');
    process.exit(1);
  }, 4500).unref();
  await server.close();
  lock.release();
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
