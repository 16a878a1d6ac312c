import type { RouteModule } from './app.ts';
import { streamRoutes } from './http/stream.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [streamRoutes];
