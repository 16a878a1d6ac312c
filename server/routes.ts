import type { RouteModule } from './app.ts';
import { registerAuth } from './http/auth.ts';
import { streamRoutes } from './http/stream.ts';
import { registerTokens } from './http/tokens.ts';
import { registerUsers } from './http/users.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [registerAuth, registerUsers, registerTokens, streamRoutes];
