import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/access.ts';
import { rateKey } from '../auth/client-address.ts';
import { clientOf } from '../auth/service.ts';
import type { Deps } from '../deps.ts';
import { logSummary } from '../log-summary.ts';
import { type SecurityEvent, type SecurityFields, writeSecurity } from './security-log.ts';

type Latest = { address: string; principal: Principal | null; fields: SecurityFields };

export type SecuritySummary = {
  /** Notes one occurrence of the event for the request's address: a line now, or counted for later. */
  note(request: FastifyRequest, fields: SecurityFields): void;
  /** Writes the counts not yet written and stops the timer (the server is stopping). */
  stop(): void;
};

/**
 * A security event that a flood can repeat thousands of times a second (an unknown host token, an
 * agent route's 429), summarised per address (`log-summary.ts`): a line at the first with `count: 1`,
 * then at most one a minute with the `count` since and the fields of the latest. An IPv6 /64 is one
 * address (its rate key); at most `maxAddresses` are followed.
 */
export function securitySummary(
  deps: Pick<Deps, 'log' | 'config' | 'clock'>,
  event: SecurityEvent,
  options: { everyMs?: number; maxAddresses?: number } = {},
): SecuritySummary {
  const summary = logSummary<Latest>(
    deps.clock,
    (p, count) => writeSecurity(deps, event, p.address, p.principal, { ...p.fields, count }),
    {
      ...(options.everyMs === undefined ? {} : { everyMs: options.everyMs }),
      ...(options.maxAddresses === undefined ? {} : { maxKeys: options.maxAddresses }),
    },
  );
  return {
    note(request, fields) {
      const address = clientOf(deps, request);
      summary.note(rateKey(address), { address, principal: request.principal, fields });
    },
    stop: () => summary.stop(),
  };
}
