import type { ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
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
 * characters, without terminal escapes and, in a line rewritten after `\r`, as last written; the value is
 * the first number in stdout's line that does not stand inside a word ("load 0.53" gives 0.53, "sda1
 * 80%" gives 80, "rows 1,234,567" gives 1234567, "1e3" gives 1000), null when there is none: an error
 * on stderr ("sh: 1: foo: not found", "curl: (7) Failed…") says what went wrong, never a value.
 *
 * Of each stream the first 64 KiB is kept; past 1 MiB the stream is closed, as `head` would: a command
 * that goes on writing to it gets SIGPIPE (or EPIPE) and usually ends there, down, instead of being read
 * for the whole timeout (`yes`). Output between the two is read and thrown away, so that a command that
 * prints a page or two (`curl` of a web page) still ends as it would.
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

/** Output kept per stream. */
export const OUTPUT_CAP = 64 * 1024;
/** Output read per stream: past it the stream is closed. */
export const READ_CAP = 1024 * 1024;
/** How long output is still read after the shell exits while a child it left holds the pipes. */
const OUTPUT_GRACE_MS = 100;
const MAX_DETAIL = 300;

export async function runCommand(options: CommandOptions): Promise<RunOutcome> {
  const now = options.now ?? Date.now;
  const started = now();
  // Loaded with the first command: an agent without command checks does without it.
  const { spawn } = await import('node:child_process');
  return new Promise((resolve) => {
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
    const stdout = capture(child.stdout!);
    const stderr = capture(child.stderr!);
    child.on('error', (error) => {
      settle({ status: 'down', latencyMs: null, detail: `cannot start /bin/sh: ${error.message}` });
    });
    // The shell's exit decides: a child it left in the background may hold the pipes open for long
    // (`close` would wait for it). What the shell wrote is read when both pipes end, or after a short
    // grace when something else still holds them.
    child.on('exit', (code, signal) => {
      const latencyMs = now() - started;
      const judge = () => {
        const out = firstLine(stdout.text());
        const line = out ?? firstLine(stderr.text());
        const fallback = code === null ? `killed by ${signal}` : `exit code ${code}`;
        const detail = (line ?? fallback).slice(0, MAX_DETAIL);
        settle({
          status: code === 0 ? 'up' : 'down',
          latencyMs,
          detail,
          // From stdout only: a number in an error message is not a reading.
          value: out === null ? null : numberIn(detail),
        });
      };
      let open = 2;
      const ended = () => {
        if (--open === 0) judge();
      };
      for (const stream of [child.stdout!, child.stderr!]) {
        // `close`, not `end`: a stream closed at READ_CAP never ends.
        if (stream.destroyed) ended();
        else stream.once('close', ended);
      }
      grace = setTimeout(judge, OUTPUT_GRACE_MS);
    });
  });
}

/** The environment commands run with: the agent's, without MON_* (the token among them). */
export function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('MON_')));
}

/**
 * Terminal escapes: colours and other CSI sequences (`ESC [ … m`), OSC strings (titles, links) and the
 * two- and three-character ones (`ESC ( B`).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: ESC, BEL are what is matched
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[()*+][0-9A-Za-z]|[@-Z\\^_])/g;

/**
 * The first line with something other than blanks, trimmed, without terminal escapes; of a line
 * rewritten after a `\r` (a progress display), the text after the last one; null when there is none.
 */
export function firstLine(output: string): string | null {
  for (const line of output.split('\n')) {
    const parts = line.replace(ESCAPES, '').split('\r');
    for (let i = parts.length - 1; i >= 0; i--) {
      const trimmed = parts[i]!.trim();
      if (trimmed) return trimmed;
    }
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

/** Keeps the first OUTPUT_CAP of `stream`; closes it past READ_CAP (the command's next write fails). */
function capture(stream: Readable): { text: () => string } {
  const chunks: Buffer[] = [];
  let kept = 0;
  let read = 0;
  stream.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (kept < OUTPUT_CAP) {
      const part = chunk.length > OUTPUT_CAP - kept ? chunk.subarray(0, OUTPUT_CAP - kept) : chunk;
      chunks.push(part);
      kept += part.length;
    }
    // Read on, endless output (`yes`) would keep the agent busy until the timeout.
    if (read > READ_CAP) stream.destroy();
  });
  return { text: () => Buffer.concat(chunks).toString('utf8') };
}
