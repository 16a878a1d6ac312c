import type { LogFrame } from '../protocol/agent.ts';
import { isoTime } from '../protocol/iso-time.ts';

export type LogLevel = LogFrame['lines'][number]['level'];
export type LogLine = LogFrame['lines'][number];

/**
 * The agent's own log: one line per event on stderr (`<time> <level> <text>`), for `journalctl` and
 * `docker logs`. It also keeps the last lines: those not yet sent go to the next `log` frame, so the
 * server can attach them to incidents. Never put the token in a line.
 */
export type AgentLog = {
  debug(text: string): void;
  info(text: string): void;
  warn(text: string): void;
  error(text: string): void;
  /** The lines logged since the last call (at most the last `KEEP_LINES`), oldest first. */
  takeNew(): LogLine[];
  /** The lines kept, oldest first. */
  recent(): LogLine[];
};

/** Lines kept in memory (the `log` frame takes at most as many). */
export const KEEP_LINES = 1000;
/** The longest line a `log` frame carries. */
const MAX_TEXT = 2000;

export function createAgentLog(
  options: { now?: () => number; write?: (line: string) => void; keep?: number } = {},
): AgentLog {
  const now = options.now ?? Date.now;
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const keep = options.keep ?? KEEP_LINES;
  // A ring: `lines` holds at most `keep`; `unsent` counts the newest of them not yet taken.
  const lines: LogLine[] = [];
  let unsent = 0;
  const emit = (level: LogLevel) => (text: string) => {
    const line: LogLine = {
      ts: now(),
      level,
      text: text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT - 1)}…` : text,
    };
    write(`${isoTime(line.ts)} ${level} ${line.text}\n`);
    lines.push(line);
    if (lines.length > keep) lines.shift();
    unsent = Math.min(unsent + 1, lines.length);
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    takeNew() {
      const taken = lines.slice(lines.length - unsent);
      unsent = 0;
      return taken;
    },
    recent: () => lines.slice(),
  };
}
