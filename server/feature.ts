import type { FastifyInstance } from 'fastify';

/**
 * A feature of the server as the composition root sees it (start.ts): its routes, and how it starts,
 * stops and reports its health. Features are created in order, each from the shared `Deps` and the
 * services of the features before it; start runs in that order, stop in reverse.
 */
export type Feature = {
  readonly name: string;
  /** Registers the feature's routes. Each route's access comes from the access table (auth/access.ts). */
  routes?(app: FastifyInstance): void;
  start?(): Promise<void> | void;
  stop?(): Promise<void> | void;
  /** For /healthz: the reason the feature is unhealthy, or null. */
  health?(): string | null;
};
