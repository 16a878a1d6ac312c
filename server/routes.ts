import type { RouteModule } from './app.ts';
import { registerChecks } from './http/checks.ts';
import { registerPing } from './http/ping.ts';
import { registerServices } from './http/services.ts';

/** Every route module of the server, in registration order. */
export const routeModules: RouteModule[] = [registerChecks, registerServices, registerPing];
