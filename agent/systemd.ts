import type { ChildProcess } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { join, resolve as resolvePath } from 'node:path';
import type { UnitSample } from '../protocol/agent.ts';
import { unitStates } from '../protocol/agent-constants.ts';
import { monotonicMs } from './collectors/rates.ts';

/**
 * systemd services through one `systemctl show` per sample (docs/host-metrics.md, "systemd units"):
 *
 *   systemctl show --all --type=service --no-pager --property=Id,LoadState,… '*.service'
 *
 * The pattern makes `show` list every loaded service (without one it shows the manager itself); `--all`
 * keeps the inactive and failed ones. Each unit comes as a block of `Key=value` lines, blocks apart by
 * a blank line, in the order systemd's D-Bus interfaces give them (not the order asked).
 *
 * Why systemctl rather than the cgroup files (`<root>/sys/fs/cgroup/system.slice/<unit>/cpu.stat`,
 * `memory.current`): state, sub-state and restarts only systemd knows, so systemctl runs anyway, and
 * the same answer carries CPU and memory as systemd accounts them, on cgroup v1 and v2 alike (the files
 * differ between the two). Reading the files as well would add work, not save it. Measured with 200
 * units and the fixture systemctl (agent/fixtures/systemctl) on a loaded 2-core machine: 3.1 ms of the
 * agent's CPU per sample (the spawn; parsing the 26 KB answer is 0.2 ms), 0.02 % of one core at a
 * sample every 15 s, plus systemctl's own work (one D-Bus call per unit, which cannot run here);
 * reading the 400 cgroup files instead would be 1.4 ms on top of the spawn state needs.
 *
 * CPU is percent of one CPU: the growth of `CPUUsageNSec` over the wall time since this reader's previous
 * sample, × 100; null on a unit's first sample, when accounting is off (`[not set]`) and when the counter
 * went back (the unit restarted: its cgroup is new).
 */

export type UnitReader = {
  /**
   * The loaded services, or null when there is no systemd to ask (no systemctl, or not booted with it);
   * never rejects.
   */
  read(ts: number): Promise<UnitSample[] | null>;
  /** Why the last read gave null, in a line for the agent's log; null after a read that worked. */
  problem(): string | null;
};

export const SHOW_PROPERTIES = [
  'Id',
  'LoadState',
  'ActiveState',
  'SubState',
  'NRestarts',
  'CPUUsageNSec',
  'MemoryCurrent',
];

export const SHOW_ARGS = [
  'show',
  '--all',
  '--type=service',
  '--no-pager',
  `--property=${SHOW_PROPERTIES.join(',')}`,
  '*.service',
];

/** systemctl gets this long before it is stopped and the sample goes without units. */
const TIMEOUT_MS = 10_000;
/** Longest answer read (200 units are about 30 KB). */
const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
/** The schema's bound on units in a sample. */
const MAX_UNITS = 10_000;

type CpuMark = { nsec: number; at: number };

/** Where a host keeps systemctl, inside its root. */
const HOST_SYSTEMCTL = ['/usr/bin/systemctl', '/bin/systemctl'];

/**
 * The command that asks the host's systemd: systemctl from the PATH; else, for an agent whose host root
 * is mounted elsewhere (the Docker install's container, which has no systemd of its own), the host's
 * own systemctl run inside that root with chroot, by the path checked here: a file of root's that
 * nobody else may change, since the agent runs it as root. Inside, it reaches the host's systemd
 * through its socket under `<root>/run/systemd`. systemctl ignores most commands when it finds itself
 * in a chroot, but this root is the host's own `/` mounted again (the same inode), so it does not.
 * chroot needs root and CAP_SYS_CHROOT, which Docker gives by default. `problem` says why there is no
 * command.
 */
export function systemctlCommand(
  hostRoot: string,
  systemctl: string,
  env: NodeJS.ProcessEnv,
): { command: string; args: string[] } | { problem: string } {
  const runnable = (command: string) => runnableOn(env.PATH, command);
  if (runnable(systemctl)) return { command: systemctl, args: SHOW_ARGS };
  if (resolvePath(hostRoot) === '/') return { problem: `${systemctl}: not found` };
  const inside = HOST_SYSTEMCTL.find((file) => ownedByRoot(join(hostRoot, file)));
  if (!inside) return { problem: `${systemctl}: not found, here or as root's in ${hostRoot}` };
  if (!runnable('chroot')) return { problem: `chroot: not found (to run ${join(hostRoot, inside)})` };
  return { command: 'chroot', args: [hostRoot, inside, ...SHOW_ARGS] };
}

/** An executable file of root's that neither its group nor others may write. */
function ownedByRoot(file: string): boolean {
  try {
    const stat = statSync(file);
    return stat.isFile() && stat.uid === 0 && (stat.mode & 0o022) === 0 && (stat.mode & 0o100) !== 0;
  } catch {
    return false;
  }
}

export type UnitReaderOptions = {
  /**
   * The environment systemctl runs with, its PATH included: the agent's without MON_* (`commandEnv`
   * of command.ts, as main.ts, the one reader of process.env, hands it), so the host token never
   * reaches a child.
   */
  env: NodeJS.ProcessEnv;
  systemctl?: string;
  hostRoot?: string;
  /** A monotonic clock in ms for the time between samples (collectors/rates.ts's `monotonicMs`). */
  monotonic?: () => number;
};

export function createUnitReader(options: UnitReaderOptions): UnitReader {
  const { env } = options;
  const systemctl = options.systemctl ?? 'systemctl';
  const hostRoot = options.hostRoot ?? '/';
  const monotonic = options.monotonic ?? monotonicMs;
  const cpuMarks = new Map<string, CpuMark>();
  let lastProblem: string | null = null;

  /** `at`: when systemctl answered, on the monotonic clock (a step of the wall clock is no CPU time). */
  function cpuOf(name: string, nsec: number | null, at: number): number | null {
    const before = cpuMarks.get(name);
    if (nsec === null) {
      cpuMarks.delete(name);
      return null;
    }
    cpuMarks.set(name, { nsec, at });
    if (!before || nsec < before.nsec || at <= before.at) return null;
    return ((nsec - before.nsec) / ((at - before.at) * 1e6)) * 100;
  }

  return {
    async read() {
      const how = systemctlCommand(hostRoot, systemctl, env);
      const answer =
        'problem' in how
          ? { stdout: '', problem: how.problem, stopped: true }
          : await run(how.command, how.args, env);
      const blocks = answer.stopped ? [] : parseShow(answer.stdout);
      // A non-zero exit with units listed (one unit that could not be read) still gives the others.
      if (answer.problem !== null && blocks.length === 0) {
        lastProblem = `no systemd units: ${answer.problem}`;
        return null;
      }
      lastProblem = null;
      const at = monotonic();
      const units: UnitSample[] = [];
      for (const block of blocks.slice(0, MAX_UNITS)) {
        const parsed = unitOf(block);
        if (!parsed) continue;
        const { cpuNsec, ...unit } = parsed;
        units.push({ ...unit, cpu: cpuOf(unit.name, cpuNsec, at) });
      }
      const seen = new Set(units.map((unit) => unit.name));
      for (const name of cpuMarks.keys()) if (!seen.has(name)) cpuMarks.delete(name);
      return units;
    },
    problem: () => lastProblem,
  };
}

/** `systemctl show` output as one record per unit. */
export function parseShow(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  let block = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') {
      if (block.size > 0) blocks.push(block);
      block = new Map();
      continue;
    }
    const at = line.indexOf('=');
    if (at > 0) block.set(line.slice(0, at), line.slice(at + 1));
  }
  if (block.size > 0) blocks.push(block);
  return blocks;
}

type ParsedUnit = Omit<UnitSample, 'cpu'> & { cpuNsec: number | null };

/**
 * A unit of the answer, or null for one mon skips: a name systemd references but no file defines
 * (`LoadState=not-found`), or a state mon does not know.
 */
export function unitOf(block: Map<string, string>): ParsedUnit | null {
  const name = block.get('Id');
  if (!name || name.length > 256 || block.get('LoadState') === 'not-found') return null;
  const state = stateOf(block.get('ActiveState'));
  if (!state) return null;
  return {
    name,
    state,
    subState: (block.get('SubState') ?? '').slice(0, 64),
    restarts: counter(block.get('NRestarts')) ?? 0, // systemd before 235 has no NRestarts
    memory: counter(block.get('MemoryCurrent')),
    cpuNsec: counter(block.get('CPUUsageNSec')),
  };
}

/**
 * systemd's active states as the protocol names them. Newer systemd adds two: `maintenance` (the unit
 * is stopped while `systemctl clean` runs) reads as inactive, `refreshing` (new mount images given to
 * a running unit) as reloading.
 */
function stateOf(text: string | undefined): UnitSample['state'] | null {
  if (text === 'maintenance') return 'inactive';
  if (text === 'refreshing') return 'reloading';
  return unitStates.find((state) => state === text) ?? null;
}

/**
 * An unsigned counter of `show`, or null: `[not set]` (accounting off, or no cgroup while stopped), an
 * empty value, and the largest 64-bit value older systemd prints for "not set".
 */
function counter(text: string | undefined): number | null {
  if (text === undefined || !/^\d+$/.test(text)) return null;
  const value = Number(text);
  return value >= 2 ** 63 ? null : value;
}

/**
 * Runs systemctl. `problem` says why its answer is not a clean one (null when it exited 0); `stopped`
 * that it was cut short (too slow, too much output), when nothing it wrote is to be trusted.
 */
async function run(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ stdout: string; problem: string | null; stopped: boolean }> {
  // A host without systemctl never loads node:child_process.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    let size = 0;
    let err = '';
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: TIMEOUT_MS,
        killSignal: 'SIGKILL',
        env: { ...env, SYSTEMD_PAGER: '', SYSTEMD_COLORS: '0', LC_ALL: 'C' },
      });
    } catch (error) {
      resolve({ stdout: '', problem: `${command}: ${(error as Error).message}`, stopped: true });
      return;
    }
    child.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) child.kill('SIGKILL');
      else out.push(chunk);
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (err.length < 2000) err += chunk.toString('utf8');
    });
    child.on('error', (error) =>
      resolve({ stdout: '', problem: `${command}: ${error.message}`, stopped: true }),
    );
    child.on('close', (code, signal) => {
      const stdout = Buffer.concat(out).toString('utf8');
      const said = err.trim().split('\n')[0] ?? '';
      if (signal) {
        const why = size > MAX_OUTPUT_BYTES ? 'too much output' : `no answer in ${TIMEOUT_MS / 1000} s`;
        resolve({ stdout, problem: `${command} stopped: ${why}`, stopped: true });
      } else if (code === 0) resolve({ stdout, problem: null, stopped: false });
      else
        resolve({ stdout, problem: `${command} exited ${code}${said ? `: ${said}` : ''}`, stopped: false });
    });
  });
}

/** Whether `command` can be run: a path to an executable file, or a name of one on `path`. */
function runnableOn(path: string | undefined, command: string): boolean {
  const dirs = (path ?? '').split(':').filter(Boolean);
  const candidates = command.includes('/') ? [command] : dirs.map((dir) => join(dir, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
