import type { RouteModule } from './app.ts';
import { registerAuth } from './http/auth.ts';
import { registerConfig } from './http/config.ts';
import { registerTokens } from './http/tokens.ts';
import { registerUsers } from './http/users.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [registerAuth, registerUsers, registerTokens, registerConfig];
