import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/access.ts';
import { rateKey } from '../auth/client-address.ts';
import { clientOf } from '../auth/service.ts';
import type { TimerHandle } from '../clock.ts';
import type { Deps } from '../deps.ts';
import { type SecurityEvent, type SecurityFields, writeSecurity } from './security-log.ts';

/** A summarised event writes at most one line per address in this time. */
export const SUMMARY_EVERY_MS = 60_000;

type Pending = {
  address: string;
  principal: Principal | null;
  /** The fields of the latest occurrence. */
  fields: SecurityFields;
  /** Occurrences since the address's last line. */
  count: number;
  /** When the address may have its next line. */
  until: number;
};

export type SecuritySummary = {
  /** Notes one occurrence of the event for the request's address: a line now, or counted for later. */
  note(request: FastifyRequest, fields: SecurityFields): void;
  /** Writes the counts not yet written and stops the timer (the server is stopping). */
  stop(): void;
};

/**
 * A security event that a flood can repeat thousands of times a second (an unknown host token, an
 * agent route's 429): the first occurrence of an address is a line at once with `count: 1`; those that
 * follow within the minute are counted, and written as one line with their `count` when the minute is
 * over (which starts the next minute). A flood writes a line a minute per address, not one per
 * request, and no occurrence goes uncounted. One clock timer for all addresses: they are kept in the
 * order their minutes end. At most `maxAddresses` are followed; beyond, the oldest is written early.
 */
export function securitySummary(
  deps: Pick<Deps, 'log' | 'config' | 'clock'>,
  event: SecurityEvent,
  options: { everyMs?: number; maxAddresses?: number } = {},
): SecuritySummary {
  const everyMs = options.everyMs ?? SUMMARY_EVERY_MS;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const { clock } = deps;
  // By rate key (an IPv6 /64 is one), in the order their minutes end.
  const pending = new Map<string, Pending>();
  let timer: TimerHandle | null = null;

  const write = (p: Pending, count: number) =>
    writeSecurity(deps, event, p.address, p.principal, { ...p.fields, count });

  function arm(): void {
    if (timer) clock.clearTimeout(timer);
    timer = null;
    const first = pending.values().next();
    if (first.done) return;
    timer = clock.setTimeout(fire, Math.max(0, first.value.until - clock.now()));
  }

  function fire(): void {
    timer = null;
    const now = clock.now();
    const due: [string, Pending][] = [];
    for (const [key, p] of pending) {
      if (p.until > now) break;
      due.push([key, p]);
    }
    for (const [key, p] of due) {
      pending.delete(key);
      if (p.count === 0) continue;
      write(p, p.count);
      // Still under way: the next line comes a minute after this one at the earliest.
      pending.set(key, { ...p, count: 0, until: now + everyMs });
    }
    arm();
  }

  return {
    note(request, fields) {
      const address = clientOf(deps, request);
      const key = rateKey(address);
      const known = pending.get(key);
      if (known) {
        known.count++;
        known.address = address;
        known.principal = request.principal;
        known.fields = fields;
        return;
      }
      if (pending.size >= maxAddresses) {
        const [oldKey, oldest] = pending.entries().next().value!;
        pending.delete(oldKey);
        if (oldest.count > 0) write(oldest, oldest.count);
      }
      const p: Pending = {
        address,
        principal: request.principal,
        fields,
        count: 0,
        until: clock.now() + everyMs,
      };
      write(p, 1);
      pending.set(key, p);
      if (pending.size === 1) arm();
    },
    stop() {
      if (timer) clock.clearTimeout(timer);
      timer = null;
      for (const p of pending.values()) if (p.count > 0) write(p, p.count);
      pending.clear();
    },
  };
}
