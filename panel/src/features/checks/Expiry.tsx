import type { Expiry as ExpiryType } from '../../../../protocol/reads.ts';
import { formatDate, formatDuration, formatWhen } from '../../lib/format.ts';

const WARN_MS = 14 * 86_400_000;

/** Certificate or domain registration expiry, with a warning when it is close. */
export function Expiry({ expiry }: { expiry: ExpiryType }) {
  const left = expiry.expires - Date.now();
  const what = expiry.kind === 'domain' ? 'Domain registration' : 'Certificate';
  const tone = left <= 0 ? 'error' : left < WARN_MS ? 'warn' : '';
  return (
    <section className="card">
      <div className="card-head">
        <h2>{what}</h2>
        <span className="muted small">seen {formatWhen(expiry.seen)}</span>
      </div>
      <div className="card-body">
        <div
          className={tone ? `alert ${tone}` : ''}
          style={tone ? { margin: 0 } : undefined}
          data-testid="expiry"
        >
          {left <= 0
            ? `${what} expired on ${formatDate(expiry.expires)}.`
            : `${what} expires on ${formatDate(expiry.expires)}, in ${formatDuration(left)}.`}
        </div>
      </div>
    </section>
  );
}
