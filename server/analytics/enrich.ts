import type { TrackerEvent } from '../../protocol/analytics.ts';
import { pagePath, referrerHost, utmOf } from './sources.ts';
import type { TrackerItem } from './types.ts';
import type { AgentTraits } from './user-agents.ts';

/** Who sent an event, as storage keeps it: no address, no user agent. */
export type Sender = {
  site: string;
  ts: number;
  visitor: string;
  traits: AgentTraits;
  country: string | null;
};

const orNull = <T>(value: T | undefined | ''): T | null =>
  value === undefined || value === '' ? null : value;

/**
 * A script's address without query or fragment, as page paths are kept: tokens and session ids ride
 * there. Null when nothing is left.
 */
export function scriptAddress(script: string | undefined): string | null {
  return orNull(script?.replace(/[?#].*$/s, ''));
}

/** A checked tracker event and who sent it, as storage takes it (`TrackerItem`). */
export function trackerItem(event: TrackerEvent, page: URL, sender: Sender): TrackerItem {
  const { site, ts, visitor, traits, country } = sender;
  const common = {
    site,
    ts,
    visitor,
    page: pagePath(page),
    device: traits.device,
    browser: traits.browser,
    os: traits.os,
    country,
  };
  switch (event.k) {
    case 'v':
      return {
        ...common,
        event: { kind: 'view', referrer: referrerHost(event.r, site, page), utm: utmOf(page) },
      };
    case 'e':
      return { ...common, event: { kind: 'engage', engagedMs: event.t, vitals: { ...event.w } } };
    case 'x':
      return {
        ...common,
        event: {
          kind: 'error',
          type: event.n?.trim() || 'Error',
          message: event.m,
          script: scriptAddress(event.s),
          line: orNull(event.l),
          column: orNull(event.c),
          stack: orNull(event.st),
        },
      };
  }
}
