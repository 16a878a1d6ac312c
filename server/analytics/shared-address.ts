import type { SharedAddress } from '../../protocol/analytics.ts';

/**
 * Visitors who share an address, per site, in memory over the last 24 hours (docs/analytics.md):
 * events forwarded by a peer not in `trusted_proxies`, and client addresses many visitors share.
 * Bounded: a flood of addresses cannot grow it.
 */
export class SharedAddressWatch {
  /** Counts one accepted event; `untrustedPeer` is its peer when it carried X-Forwarded-For from outside `trusted_proxies`. */
  note(site: string, now: number, address: string, visitor: string, untrustedPeer: string | null): void {
    void site;
    void now;
    void address;
    void visitor;
    void untrustedPeer;
    // Stand-in until built.
  }

  /** What the analytics read says of `site` at `now`; `trusted` says whether a peer is trusted now. */
  of(site: string, now: number, trusted: (peer: string) => boolean): SharedAddress {
    void site;
    void now;
    void trusted;
    // Stand-in until built: nothing seen.
    return { forwarded: null, proxy: null };
  }
}
