import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.ts';

/** `GET /agent/v1/agent.mjs`: the agent as one self-contained file, for the install commands. */
export function registerAgentFile(_app: FastifyInstance, _deps: Deps): void {}
