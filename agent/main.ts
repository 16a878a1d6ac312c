import { systemClock } from '../server/clock.ts';
import { StateDirError, startAgent } from './agent.ts';
import { commandEnv } from './command.ts';
import { createAgentLog } from './log.ts';
import { hostReaders } from './sampling.ts';
import { readSettings, SettingsError } from './settings.ts';
import { StateDirLocked } from './state-dir.ts';
import { AGENT_VERSION as version } from './version.ts';

// The mon agent (docs/agent.md): `npm run agent`, `node agent/main.ts`, or the one-file bundle
// `node mon-agent.mjs` (agent/build.ts). The only file of the agent that reads process.env.
const env = process.env;

if (process.argv.includes('--version')) {
  process.stdout.write(`mon-agent ${version}\n`);
  process.exit(0);
}

const log = createAgentLog();
// What children run with (command checks, systemctl): the environment without MON_*, the token among them.
const childEnv = commandEnv(env);
let settings: ReturnType<typeof readSettings>;
try {
  settings = readSettings(env);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  log.error(error.message);
  process.exit(2);
}

// The clock's timers do not hold the process open (the server's shutdown relies on that): this does,
// until the agent stops.
const keepAlive = setInterval(() => {}, 3_600_000);
let agent: Awaited<ReturnType<typeof startAgent>>;
try {
  agent = await startAgent({
    settings,
    version,
    log,
    clock: systemClock,
    readers: hostReaders(settings.hostRoot, log, childEnv, settings.dockerSocket),
    commandEnv: childEnv,
  });
} catch (error) {
  if (!(error instanceof StateDirError || error instanceof StateDirLocked)) throw error;
  log.error(error.message);
  // Not 2, a bad setting (the systemd unit does not restart on it): the directory may come back
  // (a disk mounted late, remounted read-write), the other agent may stop.
  process.exit(1);
}

let stopping = false;
async function stop(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info(`${signal}: flushing into the spool`);
  // Whatever happens, exit within 5 s of the signal.
  setTimeout(() => {
    log.error('stopping took too long; exiting');
    process.exit(1);
  }, 5000).unref();
  await agent.stop();
  clearInterval(keepAlive);
  log.info('stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
