import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { liveKeys } from '../protocol/live.ts';
import { type AnalyticsOptions, createAnalytics } from './analytics/feature.ts';
import { buildApp } from './app.ts';
import type { Authenticator } from './auth/access.ts';
import { createAccounts } from './auth/feature.ts';
import type { EngineOptions } from './checks/engine.ts';
import { createChecks } from './checks/feature.ts';
import { checksForExport, panelCheckNames, panelServiceNames } from './checks/store.ts';
import { type Clock, systemClock } from './clock.ts';
import { configFeature } from './config/feature.ts';
import type { ConfigService } from './config/service.ts';
import { createFileConfig } from './config/watch.ts';
import { createDeploys } from './deploys/feature.ts';
import type { Deps } from './deps.ts';
import { DomainEvents } from './events.ts';
import type { Feature } from './feature.ts';
import { createHosts, type HostsOptions } from './hosts/feature.ts';
import { listHostRecords, storedHostNames } from './hosts/store.ts';
import { createIncidents } from './incidents/feature.ts';
import { Bus } from './live/bus.ts';
import { liveFeature } from './live/feature.ts';
import type { Log } from './log.ts';
import { logSummary } from './log-summary.ts';
import { createMetrics } from './metrics.ts';
import { panelChannelNames } from './notify/channel-store.ts';
import { createNotify } from './notify/feature.ts';
import type { NotifyOptions } from './notify/options.ts';
import { panelChannels } from './notify/targets.ts';
import { createOverview } from './overview/feature.ts';
import { openStore, type StoreOptions } from './store/db.ts';
import { lastGoodText } from './store/last-good-config.ts';
import { createWatchdog } from './watchdog/feature.ts';
import { createWindows } from './windows/feature.ts';

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
  /** Writer settings (tests shorten the lock wait or the group-commit window). */
  store?: Pick<
    StoreOptions,
    'maxWaitMs' | 'windowMs' | 'maxQueue' | 'checkpointInBackground' | 'syncInBackground'
  >;
  /** Replaces who a request comes from (tests that are not about accounts). */
  authenticate?: Authenticator;
  /** Notification settings of tests: the platforms' API addresses. */
  notify?: NotifyOptions;
  /** Agent ingest limits and sampling (tests make them small or fast). */
  hosts?: HostsOptions;
  analytics?: AnalyticsOptions;
};

/** The running server's parts, for main.ts and tests. */
export type Server = {
  app: FastifyInstance;
  deps: Deps;
  checks: ReturnType<typeof createChecks>;
  accounts: ReturnType<typeof createAccounts>;
  hosts: ReturnType<typeof createHosts>;
  analytics: ReturnType<typeof createAnalytics>;
  /** Stops accepting, waits for requests in flight, stops the features, flushes the writer, closes the database. */
  close(): Promise<void>;
};

/**
 * The composition root: creates the shared services (store, clock, bus, events, metrics, config), then
 * the features in order, each with the services of those before it. Start, stop and health loop over
 * the features. `listen()` is left to the caller.
 */
export async function createServer(options: ServerOptions): Promise<Server> {
  const { log } = options;
  const metrics = createMetrics();
  const bus = new Bus();
  const clock = options.clock ?? systemClock;
  // A full disk fails every transaction: the first failure of a kind is a line at once, then one a
  // minute with a count (SQLite's result code is the kind; an after-commit hook's throw is another).
  const writeFailures = logSummary<string>(clock, (error, count) =>
    log.error('a write transaction failed', { error, count }),
  );
  const database = join(options.dataDir, 'mon.db');
  metrics.showDatabase(database);
  const store = openStore(database, {
    checkpointInBackground: true,
    syncInBackground: true,
    ...options.store,
    onCommit: () => metrics.writerCommits.inc(),
    onQueueFull: () => metrics.ingestRejected.inc({ reason: 'queue_full' }),
    onFailure: (error) =>
      writeFailures.note(String((error as { errcode?: unknown }).errcode ?? 'other'), String(error)),
    onCheckpoints: (what) => log.warn(what),
    onLoosePermissions: (files) =>
      log.warn(
        'other users can read the data directory or database; chmod 700 the directory, 600 the files',
        {
          files,
        },
      ),
    // Live updates go out after commit, from here alone: a client never refetches before the data is there.
    onInvalidate: (keys) => bus.publish(...keys),
  });
  const config =
    options.config ??
    createFileConfig({
      path: options.configPath,
      env: options.env,
      log,
      // Names the file must not take, and checks for the export: both live in the database.
      names: () => ({
        checks: panelCheckNames(store),
        services: panelServiceNames(store),
        channels: panelChannelNames(store.read),
        hosts: [...storedHostNames(store.read)],
      }),
      storedChecks: () => checksForExport(store),
      storedChannels: () => panelChannels(store.read),
      storedHosts: () => listHostRecords(store.read).map((h) => ({ name: h.name, alerts: h.alerts })),
      // A reload or a rejected file can change any screen (and the panel's config-error banner).
      onStatus: () => bus.publish(liveKeys.all),
      lastGood: lastGoodText(store, log),
    });
  const deps: Deps = Object.freeze({
    store,
    clock,
    bus,
    events: new DomainEvents(),
    metrics,
    config,
    log,
    env: options.env,
    dataDir: options.dataDir,
  });

  const accounts = createAccounts(deps);
  const authenticate = options.authenticate ?? accounts.authenticate;
  const checks = createChecks(deps, options.checks);
  const incidents = createIncidents(deps, checks.engine);
  const deploys = createDeploys(deps);
  const notify = createNotify(deps, options.notify);
  const hosts = createHosts(deps, checks.engine, options.hosts);
  const analytics = createAnalytics(deps, checks.engine, options.analytics);
  const features: Feature[] = [
    accounts.feature,
    configFeature(deps),
    checks.feature,
    incidents.feature,
    createWindows(deps).feature,
    deploys.feature,
    hosts.feature,
    analytics.feature,
    notify.feature,
    createWatchdog(deps).feature,
    createOverview(deps, checks.engine).feature,
    liveFeature(deps, accounts.stillValid),
  ];

  const app = buildApp(deps, { authenticate, features });
  await app.ready();
  for (const feature of features) await feature.start?.();
  let closing: Promise<void> | undefined;
  return {
    app,
    deps,
    checks,
    accounts,
    hosts,
    analytics,
    close() {
      closing ??= (async () => {
        await app.close();
        for (const feature of [...features].reverse()) await feature.stop?.();
        config.close();
        await store.close();
        writeFailures.stop();
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
