import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Authenticator } from './auth/access.ts';
import type { EngineOptions } from './checks/engine.ts';
import type { Clock } from './clock.ts';
import type { ConfigService } from './config/service.ts';
import { createLog, type Log, silentLog } from './log.ts';
import { createServer, type Server, type ServerOptions } from './start.ts';
import type { Writer } from './store/writer.ts';

/** A fresh temporary data directory, removed by the returned cleanup. */
export function tempDir(prefix = 'mon-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A log that keeps its lines (as the real log writes them, parsed back) for tests to inspect. */
export function memoryLog(): { log: Log; text: () => string; lines: () => Record<string, unknown>[] } {
  const written: string[] = [];
  return {
    log: createLog((line) => written.push(line)),
    text: () => written.join(''),
    lines: () => written.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}

export type TestServer = Server & { dataDir: string; dispose(): Promise<void> };

/**
 * A whole server on a temporary data directory (or `dataDir`, to start again on the data of one that
 * was closed), for `app.inject()` tests. Call `dispose()` after: it removes the directory.
 */
export async function createTestServer(
  options: {
    env?: Record<string, string>;
    clock?: Clock;
    config?: ConfigService;
    configPath?: string;
    checks?: EngineOptions;
    store?: ServerOptions['store'];
    authenticate?: Authenticator;
    dataDir?: string;
    log?: Log;
    notify?: ServerOptions['notify'];
    hosts?: ServerOptions['hosts'];
    analytics?: ServerOptions['analytics'];
  } = {},
): Promise<TestServer> {
  const { dir, remove } = options.dataDir
    ? { dir: options.dataDir, remove: () => rmSync(options.dataDir!, { recursive: true, force: true }) }
    : tempDir();
  const server = await createServer({
    dataDir: dir,
    configPath: options.configPath ?? join(dir, 'mon.toml'),
    env: options.env ?? {},
    log: options.log ?? silentLog,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.checks ? { checks: options.checks } : {}),
    // No group-commit window: a fake clock's advance lets the writer commit within its settling turns.
    // Checkpoints stay with the writer: a thread for each test server would cost more than the
    // little WAL a test writes (checkpoints.test.ts and the tests of real processes cover the thread).
    // Commits sync in place: a sync on libuv's thread pool does not finish within a fake clock's turns.
    store: { windowMs: 0, checkpointInBackground: false, syncInBackground: false, ...options.store },
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    ...(options.notify ? { notify: options.notify } : {}),
    ...(options.hosts ? { hosts: options.hosts } : {}),
    ...(options.analytics ? { analytics: options.analytics } : {}),
  });
  return {
    ...server,
    dataDir: dir,
    async dispose() {
      await server.close();
      remove();
    },
  };
}

/** Polls `condition` every 20 ms for at most `ms` of real time; fails with `what` when it never holds. */
export async function within(ms: number, what: string, condition: () => boolean): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Runs `between` once, when the next job is handed to `writer`: after a request's checks outside the
 * writer and before its job, a moment tests cannot otherwise reach (a reload of mon.toml landing there).
 */
export function beforeNextJob(writer: Writer, between: () => void): void {
  const run = writer.run.bind(writer);
  writer.run = (fn) => {
    writer.run = run;
    between();
    return run(fn);
  };
}
