import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { liveKeys } from '../protocol/live.ts';
import { buildApp } from './app.ts';
import { createAuthenticator } from './auth/authenticate.ts';
import { authState } from './auth/service.ts';
import { prepareSetupToken } from './auth/setup-token.ts';
import { createCheckEngine, type EngineOptions } from './checks/engine.ts';
import { runners } from './checks/runners/index.ts';
import { panelCheckNames, panelChecksForExport, panelServiceNames } from './checks/store.ts';
import { type Clock, systemClock } from './clock.ts';
import type { ConfigService } from './config/service.ts';
import { createFileConfig } from './config/watch.ts';
import type { Deps } from './deps.ts';
import { Bus } from './live/bus.ts';
import type { Log } from './log.ts';
import { createMetrics } from './metrics.ts';
import { routeModules } from './routes.ts';
import { openStore } from './store/db.ts';

export type ServerOptions = {
  dataDir: string;
  configPath: string;
  env: Readonly<Record<string, string | undefined>>;
  log: Log;
  clock?: Clock;
  /** Replaces the mon.toml loader (tests). */
  config?: ConfigService;
  /** Check engine settings (tests: runners, resolvers, concurrency). */
  checks?: EngineOptions;
  /** How long a write waits for a database lock held elsewhere (tests shorten it). */
  busyTimeoutMs?: number;
};

export type Server = {
  app: FastifyInstance;
  deps: Deps;
  /** Stops accepting, waits for requests in flight, flushes the writer, closes the database. */
  close(): Promise<void>;
};

/** Wires storage, configuration, engines and routes. `listen()` is left to the caller. */
export async function createServer(options: ServerOptions): Promise<Server> {
  const metrics = createMetrics();
  const store = openStore(join(options.dataDir, 'mon.db'), {
    onCommit: () => metrics.writerCommits.inc(),
    onQueueFull: () => metrics.ingestRejected.inc({ reason: 'queue_full' }),
    onFailure: (error) => options.log.error('a write transaction failed', { error: String(error) }),
    ...(options.busyTimeoutMs === undefined ? {} : { busyTimeoutMs: options.busyTimeoutMs }),
  });
  const bus = new Bus();
  const deps: Deps = {
    store,
    clock: options.clock ?? systemClock,
    bus,
    metrics,
    config:
      options.config ??
      createFileConfig({
        path: options.configPath,
        env: options.env,
        log: options.log,
        // Names the file must not take, and panel checks for the export: both live in the database.
        names: () => ({ checks: panelCheckNames(store), services: panelServiceNames(store) }),
        panelChecks: () => panelChecksForExport(store),
        // A reload or a rejected file can change any screen (and the panel's config-error banner).
        onStatus: () => bus.publish(liveKeys.all),
      }),
    log: options.log,
    env: options.env,
    dataDir: options.dataDir,
    authenticate: async () => null,
    health: [],
  };
  deps.authenticate = createAuthenticator(deps);
  authState(deps).setupToken = prepareSetupToken(deps);
  const checks = createCheckEngine(deps, { runners, ...options.checks });
  const app = buildApp(deps, routeModules);
  await app.ready();
  await checks.start();
  let closing: Promise<void> | undefined;
  return {
    app,
    deps,
    close() {
      closing ??= (async () => {
        await app.close();
        await checks.stop();
        deps.config.close();
        await store.close();
      })();
      return closing;
    },
  };
}

/** `host:port`, `[v6]:port` or a bare port. */
export function parseListen(value: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value) ?? /^()()(\d+)$/.exec(value);
  if (!match) throw new Error(`MON_LISTEN must look like 127.0.0.1:8080, got "${value}"`);
  const port = Number(match[3]);
  if (port > 65535) throw new Error(`MON_LISTEN port out of range: ${port}`);
  return { host: match[1] || match[2] || '127.0.0.1', port };
}
