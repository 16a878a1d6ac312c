import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');

/** Starts `node server/main.ts` on a free loopback port and waits for it to listen. */
export async function startServerProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, [join(root, 'server', 'main.ts')], {
    env: { ...process.env, MON_LISTEN: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding('utf8');
  const address = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${log}`)), 15_000);
    child.stderr.on('data', (chunk: string) => {
      log += chunk;
      const m = /"address":"(http:\/\/[^"]+)"/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${log}`)));
  });
  /** `log()` is standard error (the JSON log), `output()` standard output. */
  return { child, address, log: () => log, output: () => output };
}
