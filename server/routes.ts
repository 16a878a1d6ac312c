import type { RouteModule } from './app.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [];
