import type { Deps } from '../deps.ts';
import type { Feature } from '../feature.ts';
import { CheckEngine, type EngineOptions } from './engine.ts';
import { registerPing } from './ping-routes.ts';
import { registerChecks } from './routes.ts';
import { runningRecord } from './running.ts';
import { registerServices } from './services-routes.ts';

/** Checks, heartbeats and services: the engine, its routes and the ping URLs. */
export function createChecks(deps: Deps, options: EngineOptions = {}) {
  const engine = new CheckEngine(deps, options);
  // /metrics shows each check as the engine holds it in memory: a scrape never reads the database.
  deps.metrics.showChecks(() =>
    engine.all().map(({ rec }) => ({
      name: rec.name,
      service: rec.service,
      kind: rec.kind,
      status: rec.state.status,
      latencyMs: rec.lastLatencyMs,
      expiry: rec.expiry,
    })),
  );
  // When mon ran: the time between is no data in uptime and the run bars.
  const running = runningRecord(deps);
  const feature: Feature = {
    name: 'checks',
    routes(app) {
      registerChecks(app, deps, engine);
      registerServices(app, engine);
      registerPing(app, deps, engine);
    },
    async start() {
      await running.start();
      await engine.start();
    },
    async stop() {
      await engine.stop();
      await running.stop();
    },
    health: () => engine.health(),
  };
  return { feature, engine };
}
