import type { ChildProcess } from 'node:child_process';
import { MAX_VALUE } from '../protocol/agent-constants.ts';
import type { RunOutcome } from '../runners/run.ts';

/**
 * Runs one command check (docs/agent.md, "Command checks"): `/bin/sh -c <command>` in a process group
 * of its own, the whole group killed at the timeout. One rule decides the status, the same as a
 * heartbeat's exit code: 0 is `up`, anything else `down`. Nagios plugins' 1 = warning is not kept: a
 * check that means "warning" can print a number and let the value series and its alert speak, and a
 * reader never has to know which convention a command follows.
 *
 * The message is the first non-empty line of stdout (else of stderr, else "exit code N"), at most 300
 * characters; the value is the first number in that line that does not stand inside a word
 * ("load 0.53" gives 0.53, "sda1 80%" gives 80), null when there is none.
 */
export type CommandOptions = {
  command: string;
  timeoutMs: number;
  /** Aborted when the agent stops or the check is no longer assigned: the group is killed. */
  signal?: AbortSignal;
  /** The commands' environment: the agent's own without its token and settings. */
  env: NodeJS.ProcessEnv;
  now?: () => number;
};

/** Output kept per stream; the rest is read and thrown away. */
export const OUTPUT_CAP = 64 * 1024;
const MAX_DETAIL = 300;

export async function runCommand(options: CommandOptions): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const started = now();
  // Loaded with the first command: an agent without command checks does without it.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const stdout = capture();
    const stderr = capture();
    let timedOut = false;
    let stopped = false;
    let child: ChildProcess;
    try {
      child = spawn('/bin/sh', ['-c', options.command], {
        // Its own process group (and session): the timeout kills what it started too.
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: options.env,
        cwd: '/',
      });
    } catch (error) {
      resolve({
        status: 'down',
        latencyMs: null,
        detail: `cannot start /bin/sh: ${(error as Error).message}`,
      });
      return;
    }
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs);
    const abort = () => {
      stopped = true;
      killGroup();
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    if (options.signal?.aborted) abort();
    child.stdout!.on('data', stdout.add);
    child.stderr!.on('data', stderr.add);
    child.on('error', (error) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      resolve({ status: 'down', latencyMs: null, detail: `cannot start /bin/sh: ${error.message}` });
    });
    // `close`: the exit and the end of both streams (a background child holding them open is killed
    // with the group at the timeout).
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', abort);
      const latencyMs = now() - started;
      if (timedOut) {
        resolve({ status: 'down', latencyMs: null, detail: `timed out after ${seconds(options.timeoutMs)}` });
        return;
      }
      if (stopped) {
        resolve({ status: 'down', latencyMs: null, detail: 'stopped before it finished' });
        return;
      }
      const line = firstLine(stdout.text()) ?? firstLine(stderr.text());
      const fallback = code === null ? `killed by ${signal}` : `exit code ${code}`;
      const detail = (line ?? fallback).slice(0, MAX_DETAIL);
      resolve({
        status: code === 0 ? 'up' : 'down',
        latencyMs,
        detail,
        value: line === null ? null : numberIn(detail),
      });
    });
  });
}

/** The environment commands run with: the agent's, without MON_* (the token among them). */
export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('MON_')));
}

/** The first line with something other than blanks, trimmed; null when there is none. */
export function firstLine(output: string): string | null {
  for (const line of output.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (trimmed) return trimmed;
  }
  return null;
}

/** The first number of `line` that does not stand inside a word, or null (also beyond ±MAX_VALUE: the server refuses it). */
export function numberIn(line: string): number | null {
  // Not after a letter, digit, dot or hyphen: "sda1", "v1.2" and "disk-2" are names, not values.
  const match = /(?:^|[^\w.-])(-?\d+(?:\.\d+)?)/.exec(line);
  if (!match) return null;
  const value = Number(match[1]);
  return Number.isFinite(value) && Math.abs(value) <= MAX_VALUE ? value : null;
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

function capture(): { add: (chunk: Buffer) => void; text: () => string } {
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    add(chunk) {
      if (size >= OUTPUT_CAP) return;
      const part = chunk.length > OUTPUT_CAP - size ? chunk.subarray(0, OUTPUT_CAP - size) : chunk;
      chunks.push(part);
      size += part.length;
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
  };
}
