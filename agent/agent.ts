import { join } from 'node:path';
import type { DeclaredCheck, PollAnswer } from '../protocol/agent.ts';
import { AGENT_PROTOCOL, agentCapabilities, SAMPLE_EVERY_MS } from '../protocol/agent-constants.ts';
import type { Clock, TimerHandle } from '../server/clock.ts';
import { createCheckRunner } from './checks.ts';
import { checksSummary, declarationOf, readChecksFile } from './checks-file.ts';
import { mkdir } from './fs.ts';
import { helloFrame } from './hello.ts';
import type { AgentLog } from './log.ts';
import { createOutbox } from './outbox.ts';
import type { UnreadableCheck } from './poll-answer.ts';
import { createSampler, type SampleReaders } from './sampling.ts';
import type { Settings } from './settings.ts';
import { openSpool, type Spool } from './spool.ts';
import { claimSpool, holdStateDir, StateDirLocked } from './state-dir.ts';
import { createTransport, type PollResult, proxySupport } from './transport.ts';

/**
 * The running agent: a hello and the declaration of checks.toml, a sample every 15 s (or what the
 * server's poll says) sent with the check runs and log lines of the interval, and the long poll that
 * says which checks to run. Everything waits in the spool until the server has it.
 */
export type RunningAgent = { stop(): Promise<void> };

/** Hello and the declaration are sent again this often. */
const RESEND_EVERY_MS = 3_600_000;
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;
/** Polls that come back at once with the same assignment are this far apart at least. */
const MIN_POLL_GAP_MS = 1000;
/** The shortest sampling interval a server may ask for. */
const MIN_SAMPLE_EVERY_MS = 100;

export class StateDirError extends Error {
  override name = 'StateDirError';
}

export async function startAgent(options: {
  settings: Settings;
  version: string;
  log: AgentLog;
  clock: Clock;
  readers: SampleReaders & { socketPath: string };
  /** The environment command checks run with. */
  commandEnv: NodeJS.ProcessEnv;
}): Promise<RunningAgent> {
  const { settings, version, log, clock } = options;
  try {
    // Made 0700 when missing; an existing directory keeps its mode (it may be shared): the spool
    // directory inside it is the agent's own, and 0700.
    await mkdir(settings.stateDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new StateDirError(`MON_STATE_DIR: cannot use ${settings.stateDir} (${codeOf(error)})`);
  }
  // A second agent on the directory stops here (StateDirLocked), before it touches the spool.
  const lock = await holdStateDir(settings.stateDir, log).catch((error: unknown) => {
    if (error instanceof StateDirLocked) throw error;
    throw new StateDirError(`MON_STATE_DIR: cannot use ${settings.stateDir} (${codeOf(error)})`);
  });
  let spool: Spool;
  try {
    await claimSpool(settings.stateDir, settings.server, settings.token, log);
    spool = await openSpool(join(settings.stateDir, 'spool'), {
      now: () => clock.now(),
      onDrop: (count, total) =>
        log.warn(
          `the spool is full: dropped the ${count} oldest waiting batch(es) (${total} since the agent started)`,
        ),
    });
  } catch (error) {
    lock.release();
    throw new StateDirError(`MON_STATE_DIR: cannot use ${settings.stateDir} (${codeOf(error)})`);
  }
  const waiting = spool.size();
  if (waiting.files > 0) log.info(`${waiting.files} batch(es) from before wait in the spool`);
  const proxy = await proxyOf(settings, log);
  const transport = createTransport({
    server: settings.server,
    token: settings.token,
    ca: settings.ca,
    userAgent: `mon-agent/${version}`,
    proxyEnv: proxy ? settings.proxyEnv : null,
  });
  const outbox = createOutbox({ spool, transport, log, clock });
  const runner = createCheckRunner({
    clock,
    log,
    onRun: (frame) => outbox.add(frame),
    commandEnv: options.commandEnv,
  });
  const sample = createSampler(options.readers, log, { socketPath: options.readers.socketPath });

  const checksFile = await readChecksFile(settings.checksFile);
  let host: string | null = null;
  let declared: DeclaredCheck[] = [];
  let sampleEveryMs = SAMPLE_EVERY_MS;
  let stopped = false;
  const timers: { sample: TimerHandle | null; resend: TimerHandle | null; poll: TimerHandle | null } = {
    sample: null,
    resend: null,
    poll: null,
  };
  const pollAbort = new AbortController();

  const declare = () => {
    if (host === null) return;
    const declaration = declarationOf(checksFile, host);
    declared = declaration.checks;
    outbox.add({ kind: 'declare', ts: clock.now(), ...declaration });
    // Sent now, not with the next sample: the server gives the command checks their ids in return.
    void outbox.flush();
  };

  const resend = async () => {
    timers.resend = clock.setTimeout(() => void resend(), RESEND_EVERY_MS);
    outbox.add(await helloFrame(settings.hostRoot, clock.now(), version));
    declare();
  };

  let sampling = false;
  const tick = async () => {
    timers.sample = clock.setTimeout(() => void tick(), sampleEveryMs);
    // A sample still being taken (a slow container runtime) makes this one skip, not pile up.
    if (sampling) return;
    sampling = true;
    try {
      const frame = await sample(clock.now());
      if (stopped) return;
      outbox.add(frame);
      const lines = log.takeNew();
      if (lines.length > 0) outbox.add({ kind: 'log', lines });
      await outbox.flush();
    } finally {
      sampling = false;
    }
  };

  /** The server's protocol last said to differ from this agent's, so that it is said once. */
  let protocolSaid: number | null = null;
  /** Unreadable checks already logged (by id and kind), so that each is said once. */
  const unreadableSaid = new Set<string>();
  const apply = (answer: PollAnswer, unreadable: readonly UnreadableCheck[]) => {
    // Said once, not per poll; again only if the server's changes (it was upgraded meanwhile).
    if (answer.protocol !== AGENT_PROTOCOL && answer.protocol !== protocolSaid) {
      log.warn(
        `the server speaks agent protocol ${answer.protocol}, this agent ${AGENT_PROTOCOL}: update one of them`,
      );
    }
    protocolSaid = answer.protocol === AGENT_PROTOCOL ? null : answer.protocol;
    for (const check of unreadable) {
      const key = `${check.id}\0${check.kind}`;
      if (unreadableSaid.has(key)) continue;
      unreadableSaid.add(key);
      log.warn(`check ${check.name} (${check.kind}, id ${check.id}) not run: ${check.why}: update the agent`);
    }
    if (answer.host !== host) {
      const first = host === null;
      host = answer.host;
      log.info(`${first ? 'connected' : 'renamed'}: the server knows this host as ${host}`);
      // Which tables are this host's is known only now: a shared file has other hosts' too.
      log.info(`checks.toml: ${checksSummary(checksFile, host)}`);
      declare();
    }
    const every = Math.max(MIN_SAMPLE_EVERY_MS, answer.settings.sampleEveryMs);
    if (every !== sampleEveryMs) {
      sampleEveryMs = every;
      if (timers.sample) clock.clearTimeout(timers.sample);
      timers.sample = clock.setTimeout(() => void tick(), sampleEveryMs);
    }
    runner.assign(answer, declared);
  };

  let assignment = '';
  let pollFailures = 0;
  let pollFailing: string | null = null;
  const poll = async () => {
    timers.poll = null;
    if (stopped) return;
    const asked = clock.now();
    const result = await transport.poll(
      { assignment, version, protocol: AGENT_PROTOCOL, capabilities: agentCapabilities },
      pollAbort.signal,
    );
    if (stopped) return;
    if (result.kind === 'answer') {
      if (pollFailing) log.info('the server answers the poll again');
      pollFailing = null;
      pollFailures = 0;
      // The server holds a poll while nothing changes; one that answers the same at once is not
      // asked again at once.
      const again = result.answer.assignment === assignment && clock.now() - asked < MIN_POLL_GAP_MS;
      assignment = result.answer.assignment;
      apply(result.answer, result.unreadable);
      outbox.retryNow();
      if (again) timers.poll = clock.setTimeout(() => void poll(), MIN_POLL_GAP_MS);
      else void poll();
      return;
    }
    reportPoll(result);
    const backoff = Math.min(FIRST_BACKOFF_MS * 2 ** pollFailures, MAX_BACKOFF_MS);
    pollFailures++;
    const retryAfter = result.kind === 'busy' ? result.retryAfterMs : null;
    timers.poll = clock.setTimeout(() => void poll(), retryAfter ?? backoff);
  };
  const reportPoll = (result: Exclude<PollResult, { kind: 'answer' }>) => {
    const kind = result.kind === 'failed' ? `failed:${result.detail}` : `${result.kind}:${result.status}`;
    if (kind === pollFailing) return;
    pollFailing = kind;
    if (result.kind === 'refused') log.error(`the server refused the token (${result.status}) on the poll`);
    else if (result.kind === 'failed') log.warn(`the poll failed (${result.detail})`);
    else if (result.kind === 'busy') log.warn(`the server is busy (${result.status}) on the poll`);
    else
      log.error(
        `the server refused the poll as bad (${result.status}${result.detail ? `: ${result.detail}` : ''})`,
      );
  };

  log.info(
    `mon agent ${version} starting: server ${settings.server.origin}${settings.server.pathname}${proxy ? ` through the proxy ${proxy}` : ''}, host root ${settings.hostRoot}, ` +
      `checks file ${settings.checksFile} (${checksFile.checks.length} usable [[check]] table(s), for any host)`,
  );
  for (const problem of checksFile.problems) log.warn(`checks.toml: ${problem.text}`);
  await resend();
  await tick();
  void poll();

  return {
    async stop() {
      if (stopped) return;
      stopped = true;
      for (const timer of Object.values(timers)) if (timer) clock.clearTimeout(timer);
      pollAbort.abort();
      runner.stop();
      log.info('stopping');
      const lines = log.takeNew();
      if (lines.length > 0) outbox.add({ kind: 'log', lines });
      await outbox.stop();
      transport.close();
      lock.release();
    },
  };
}

/**
 * The HTTPS proxy the agent's connections go through (its address without credentials), or null; says
 * once why a proxy that is set is not used.
 */
async function proxyOf(settings: Settings, log: AgentLog): Promise<string | null> {
  const env = settings.proxyEnv;
  if (!env) return null;
  const address = env.https_proxy ?? env.HTTPS_PROXY ?? '';
  if (settings.server.protocol !== 'https:') {
    log.warn(
      'HTTPS_PROXY is set but not used for a plain http:// MON_SERVER (the token would reach the proxy unencrypted): connecting directly',
    );
    return null;
  }
  if (!(await proxySupport())) {
    log.warn(
      `HTTPS_PROXY is set, but Node ${process.version} cannot take the agent's connections through it (Node 24.5 and later can): connecting directly`,
    );
    return null;
  }
  return URL.canParse(address) ? new URL(address).host : address.replace(/^.*@/, '');
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}
