/** Minimal structured log: one JSON line per event on stderr. Never pass secrets in `fields`. */
export type Log = {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
};

export function createLog(write: (line: string) => void = (line) => process.stderr.write(line)): Log {
  const emit = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, message, ...fields })}\n`);
  return { info: emit('info'), warn: emit('warn'), error: emit('error') };
}

export const silentLog: Log = { info() {}, warn() {}, error() {} };
