import type { ChildProcess } from 'node:child_process';
import { MAX_VALUE } from '../protocol/agent-constants.ts';
import type { RunOutcome } from '../runners/run.ts';

/**
 * Runs one command check (docs/agent.md, "Command checks"): `/bin/sh -c <command>` in a process group
 * of its own, the whole group killed at the timeout. The run ends when the shell exits: a child left
 * in the background is neither waited for nor killed, and its output is no longer read. One rule
 * decides the status, the same as a heartbeat's exit code: 0 is `up`, anything else `down`. Nagios
 * plugins' 1 = warning is not kept: a check that means "warning" can print a number and let the value
 * series and its alert speak, and a reader never has to know which convention a command follows.
 *
 * The message is the first non-empty line of stdout (else of stderr, else "exit code N"), at most 300
 * characters; the value is the first number in that line that does not stand inside a word
 * ("load 0.53" gives 0.53, "sda1 80%" gives 80, "rows 1,234,567" gives 1234567, "1e3" gives 1000),
 * null when there is none.
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
/** How long output is still read after the shell exits while a child it left holds the pipes. */
const OUTPUT_GRACE_MS = 100;
const MAX_DETAIL = 300;

export async function runCommand(options: CommandOptions): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const started = now();
  // Loaded with the first command: an agent without command checks does without it.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
    const stdout = capture();
    const stderr = capture();
    let settled = false;
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
    /** Ends the run: output no longer read (a child left in the background may hold the pipes). */
    const settle = (outcome: RunOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      options.signal?.removeEventListener('abort', abort);
      child.stdout!.destroy();
      child.stderr!.destroy();
      resolve(outcome);
    };
    // At the timeout or when stopped the run ends at once, whatever still holds the pipes (a child
    // that left the group with setsid survives the kill).
    const timer = setTimeout(() => {
      killGroup();
      settle({ status: 'down', latencyMs: null, detail: `timed out after ${seconds(options.timeoutMs)}` });
    }, options.timeoutMs);
    let grace: NodeJS.Timeout | undefined;
    const abort = () => {
      killGroup();
      settle({ status: 'down', latencyMs: null, detail: 'stopped before it finished' });
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    if (options.signal?.aborted) abort();
    child.stdout!.on('data', stdout.add);
    child.stderr!.on('data', stderr.add);
    child.on('error', (error) => {
      settle({ status: 'down', latencyMs: null, detail: `cannot start /bin/sh: ${error.message}` });
    });
    // The shell's exit decides: a child it left in the background may hold the pipes open for long
    // (`close` would wait for it). What the shell wrote is read when both pipes end, or after a short
    // grace when something else still holds them.
    child.on('exit', (code, signal) => {
      const latencyMs = now() - started;
      const judge = () => {
        const line = firstLine(stdout.text()) ?? firstLine(stderr.text());
        const fallback = code === null ? `killed by ${signal}` : `exit code ${code}`;
        const detail = (line ?? fallback).slice(0, MAX_DETAIL);
        settle({
          status: code === 0 ? 'up' : 'down',
          latencyMs,
          detail,
          value: line === null ? null : numberIn(detail),
        });
      };
      let open = 2;
      const ended = () => {
        if (--open === 0) judge();
      };
      for (const stream of [child.stdout!, child.stderr!]) {
        if (stream.readableEnded || stream.destroyed) ended();
        else stream.once('end', ended);
      }
      grace = setTimeout(judge, OUTPUT_GRACE_MS);
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

/**
 * A number: an optional minus; digits, which may be grouped in threes by commas or by underscores
 * (1,234,567 and 1_000, one separator throughout; "1,23" is 1); an optional fraction; an optional
 * exponent (1e3, 2.5E-4).
 */
const NUMBER = /(?:^|[^\w.-])(-?)(\d{1,3}([,_])\d{3}(?:\3\d{3})*(?!\d|[,_]\d)|\d+)(\.\d+)?([eE][+-]?\d+)?/;

/** The first number of `line` that does not stand inside a word, or null (also beyond ±MAX_VALUE: the server refuses it). */
export function numberIn(line: string): number | null {
  // Not after a letter, digit, dot or hyphen: "sda1", "v1.2" and "disk-2" are names, not values.
  const match = NUMBER.exec(line);
  if (!match) return null;
  const [, sign, digits, , fraction, exponent] = match;
  const value = Number(`${sign}${digits!.replace(/[,_]/g, '')}${fraction ?? ''}${exponent ?? ''}`);
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
