import { Link } from '../../lib/router.tsx';
import { useWarnings } from './queries.ts';

/**
 * Setups in which alerts may reach nobody (`GET /warnings`), each with what to do. Nothing while the
 * read is pending or failed: the overview itself matters more.
 */
export function Warnings() {
  const warnings = useWarnings();
  if (!warnings.data) return null;
  const { channels, untrustedProxy, sharedHost } = warnings.data;
  return (
    <>
      {channels === 0 ? (
        <div className="alert warn" data-warning="channels">
          <strong>No notification channel: nobody will be told</strong> when a check fails. Add a{' '}
          <Link href="/settings/channels">channel</Link>, or an <code>[[alert]]</code> to{' '}
          <code>mon.toml</code>.
        </div>
      ) : null}
      {untrustedProxy ? (
        <div className="alert warn" data-warning="untrustedProxy">
          <strong>Requests arrive through a proxy mon does not trust</strong>: {untrustedProxy.address}{' '}
          forwarded {untrustedProxy.sharePercent}% of the requests of the last hour. mon takes it for the
          client, so rate limits and security events see one address. Add it to <code>trusted_proxies</code>{' '}
          in <code>mon.toml</code>.
        </div>
      ) : null}
      {sharedHost ? (
        <div className="alert warn" data-warning="sharedHost">
          <strong>mon runs on a machine it watches</strong>: if that machine stops, mon stops with it and
          nobody is told. Run mon elsewhere, or have something outside watch mon.
        </div>
      ) : null}
    </>
  );
}
