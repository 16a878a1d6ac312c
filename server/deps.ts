import type { Clock } from './clock.ts';
import type { ConfigService } from './config/service.ts';
import type { DomainEvents } from './events.ts';
import type { Bus } from './live/bus.ts';
import type { Log } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Store } from './store/db.ts';

/**
 * The shared services every feature is built from, created once by start.ts and never changed after.
 * A feature's own services (the check engine, the accounts state) are passed explicitly to the code
 * that uses them; nothing is looked up by this object.
 */
export type Deps = Readonly<{
  store: Store;
  clock: Clock;
  /** Live-update keys, published after commit by the writer (`tx.invalidate`). */
  bus: Bus;
  /** Transactional subscribers of domain events. */
  events: DomainEvents;
  metrics: Metrics;
  config: ConfigService;
  log: Log;
  /** The server's environment, for `${NAME}` references. Only main.ts reads process.env. */
  env: Readonly<Record<string, string | undefined>>;
  dataDir: string;
}>;
