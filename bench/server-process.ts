import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const root = join(import.meta.dirname, '..');

/** The Node flags of `npm start` (package.json), so the server measured runs as it does in production. */
function startFlags(): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(' ').filter((word) => word.startsWith('--'));
}

export type ServerProcess = {
  pid: number;
  /** `performance.now()` when the process was started. */
  startedAt: number;
  host: string;
  port: number;
  /** `http://host:port` */
  base: string;
  /** SIGTERM, then waits for the exit (a CPU profile is written then). */
  stop(): Promise<void>;
};

/**
 * mon as its own process, as `npm start` runs it (server/main.ts, the same Node flags plus `nodeFlags`),
 * on a loopback port of its choosing, with its data in `dataDir` (mon.toml there). Resolves once it
 * listens; its log stays in memory and is shown if it stops before.
 */
export async function startServerProcess(options: {
  dataDir: string;
  nodeFlags?: readonly string[];
}): Promise<ServerProcess> {
  const startedAt = performance.now();
  const child = spawn(
    process.execPath,
    [...startFlags(), ...(options.nodeFlags ?? []), join(root, 'server/main.ts')],
    {
      cwd: root,
      env: { PATH: process.env.PATH, MON_DATA_DIR: options.dataDir, MON_LISTEN: '127.0.0.1:0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  const exited = once(child, 'exit');
  const tail: string[] = [];
  const listening = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stderr! }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 20) tail.shift();
      try {
        const entry = JSON.parse(line) as { message?: string; address?: string };
        if (entry.message === 'mon is listening' && entry.address) resolve(entry.address);
      } catch {}
    });
    void exited.then(([code]) =>
      reject(new Error(`mon exited (${code}) before listening:\n${tail.join('\n')}`)),
    );
  });
  const base = await listening;
  const url = new URL(base);
  return {
    pid: child.pid!,
    startedAt,
    host: url.hostname,
    port: Number(url.port),
    base,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
