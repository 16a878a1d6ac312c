import type { RouteModule } from './app.ts';
import { registerConfig } from './http/config.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [registerConfig];
