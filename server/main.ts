import { resolve } from 'node:path';
import { createLog } from './log.ts';
import { createServer, parseListen } from './start.ts';

// `npm start` (and the Dockerfile) run this with --max-semi-space-size=8: V8's young generation may
// otherwise grow to 2 x 64 MB on this build (no pointer compression) and mostly hold short-lived garbage of
// check runs. Scheduler benchmark (10,000 http checks every 10 s): peak RSS 245 to 340 MB without the
// flag, 199 to 255 MB with it, CPU 27 to 30 % of one core either way.

// The only file that reads process.env: everything else gets its settings passed in.
const env = process.env;
const log = createLog();
const dataDir = resolve(env.MON_DATA_DIR || './data');
const configPath = env.MON_CONFIG ? resolve(env.MON_CONFIG) : resolve(dataDir, 'mon.toml');
const { host, port } = parseListen(env.MON_LISTEN || '127.0.0.1:8080');

const server = await createServer({ dataDir, configPath, env, log });
await server.app.listen({ host, port });
const bound = server.app.server.address();
const shown = typeof bound === 'object' && bound ? bound : { address: host, port };
const hostText = shown.address.includes(':') ? `[${shown.address}]` : shown.address;
log.info('mon is listening', { address: `http://${hostText}:${shown.port}`, dataDir });

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
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
