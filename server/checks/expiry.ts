import { DAY } from '../../protocol/durations.ts';
import { DOMAIN_DEGRADED_DAYS } from '../../runners/domain.ts';
import { CERT_DEGRADED_DAYS } from '../../runners/http.ts';
import type { CheckRecord } from './store.ts';

/** Expiring within this long is `expiring`: the same thresholds at which the runners report degraded. */
export const EXPIRING_MS: Record<ObservedExpiry['kind'], number> = {
  certificate: CERT_DEGRADED_DAYS * DAY,
  domain: DOMAIN_DEGRADED_DAYS * DAY,
};

export type ObservedExpiry = { kind: 'certificate' | 'domain'; expires: number };

/**
 * Takes in the expiry a run observed: updates the record's expiry and state, and reports changes
 * (renewed or changed, newly expiring or expired) through `change`, with the expiry date they record.
 */
export function observeExpiry(
  rec: CheckRecord,
  seen: ObservedExpiry,
  ts: number,
  change: (status: null, title: string, detail: string, expires: number) => void,
): void {
  const what = seen.kind === 'certificate' ? 'certificate' : 'domain registration';
  const left = seen.expires - ts;
  const state = left <= 0 ? 'expired' : left <= EXPIRING_MS[seen.kind] ? 'expiring' : 'ok';
  const date = new Date(seen.expires).toISOString().slice(0, 10);
  if (rec.expiry && rec.expiry.expires !== seen.expires) {
    change(
      null,
      seen.expires > rec.expiry.expires ? `${what} renewed` : `${what} changed`,
      `expires ${date}`,
      seen.expires,
    );
  }
  if (state !== (rec.expiryState ?? 'ok') || (!rec.expiry && state !== 'ok')) {
    if (state === 'expired') change(null, `${what} expired`, `expired ${date}`, seen.expires);
    else if (state === 'expiring')
      change(null, `${what} expires in ${Math.ceil(left / DAY)} days`, `expires ${date}`, seen.expires);
  }
  rec.expiry = { kind: seen.kind, expires: seen.expires, seen: ts };
  rec.expiryState = state;
}
