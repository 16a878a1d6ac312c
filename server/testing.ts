import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Authenticator } from './auth/access.ts';
import type { EngineOptions } from './checks/engine.ts';
import type { Clock } from './clock.ts';
import type { ConfigService } from './config/service.ts';
import { silentLog } from './log.ts';
import { createServer, type Server, type ServerOptions } from './start.ts';

/** A fresh temporary data directory, removed by the returned cleanup. */
export function tempDir(prefix = 'mon-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
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
  } = {},
): Promise<TestServer> {
  const { dir, remove } = options.dataDir
    ? { dir: options.dataDir, remove: () => rmSync(options.dataDir!, { recursive: true, force: true }) }
    : tempDir();
  const server = await createServer({
    dataDir: dir,
    configPath: options.configPath ?? join(dir, 'mon.toml'),
    env: options.env ?? {},
    log: silentLog,
    ...(options.clock ? { clock: options.clock } : {}),
    ...(options.config ? { config: options.config } : {}),
    ...(options.checks ? { checks: options.checks } : {}),
    // No group-commit window: a fake clock's advance lets the writer commit within its settling turns.
    store: { windowMs: 0, ...options.store },
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
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
