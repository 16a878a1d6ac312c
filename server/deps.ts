import type { Authenticator } from './auth/access.ts';
import type { Clock } from './clock.ts';
import type { ConfigService } from './config/service.ts';
import type { Bus } from './live/bus.ts';
import type { Log } from './log.ts';
import type { Metrics } from './metrics.ts';
import type { Store } from './store/db.ts';

/** Everything a service or route module needs, passed as one explicit argument. No globals. */
export type Deps = {
  store: Store;
  clock: Clock;
  bus: Bus;
  metrics: Metrics;
  config: ConfigService;
  log: Log;
  /** The server's environment, for `${NAME}` references. Only main.ts reads process.env. */
  env: Readonly<Record<string, string | undefined>>;
  dataDir: string;
  authenticate: Authenticator;
  /** Health of engines that must be running for /healthz; each returns a reason when unhealthy. */
  health: (() => string | null)[];
};
