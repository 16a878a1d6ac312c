import type { RouteModule } from './app.ts';
import { registerAuth } from './http/auth.ts';
import { registerChecks } from './http/checks.ts';
import { registerConfig } from './http/config.ts';
import { registerPing } from './http/ping.ts';
import { registerServices } from './http/services.ts';
import { streamRoutes } from './http/stream.ts';
import { registerTokens } from './http/tokens.ts';
import { registerUsers } from './http/users.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [
  registerAuth,
  registerUsers,
  registerTokens,
  registerConfig,
  registerChecks,
  registerServices,
  registerPing,
  streamRoutes,
];
