import type { SharedAddress } from '../../../../protocol/analytics.ts';
import { formatCount } from './describe.ts';

/**
 * Visitors who share an address make mon's counts low: mon tells visitors apart by address and browser.
 * Says who shares one and what to do: trust a proxy of yours in `trusted_proxies`.
 */
export function SharedAddressNotice({ shared }: { shared: SharedAddress }) {
  const { forwarded, proxy } = shared;
  return (
    <>
      {forwarded ? (
        <div className="alert warn" data-warning="forwarded">
          <strong>Events arrive through a proxy mon does not trust</strong>: {forwarded.address} forwarded{' '}
          {forwarded.sharePercent}% of this site's events in the last 24 hours. mon takes the proxy for the
          visitor, so visitors with the same browser count as one and their countries are the proxy's. If it
          is your proxy, add it to <code>trusted_proxies</code> in <code>mon.toml</code>: mon then reads the
          visitor's address it forwards.
        </div>
      ) : null}
      {proxy ? (
        <div className="alert warn" data-warning="proxy">
          <strong>{formatCount(proxy.visitors)} visitors share one address</strong>: an address in{' '}
          {proxy.address} sent {proxy.sharePercent}% of this site's events in the last 24 hours (an office, a
          mobile network or a proxy). mon tells visitors apart by address and browser, so those behind it with
          the same browser count as one: the visitor count is low. If the address is a proxy of yours that
          forwards the visitor's address, add it to <code>trusted_proxies</code> in <code>mon.toml</code>.
        </div>
      ) : null}
    </>
  );
}
