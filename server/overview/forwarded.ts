import { MINUTE } from '../../protocol/durations.ts';

/**
 * Requests that arrive through a proxy mon does not trust: `X-Forwarded-For` from a peer not in
 * `trusted_proxies`. mon then takes the proxy for the client (rate limits, security events), so the
 * warnings read names it. Counted in memory per minute over the last hour.
 */

const WINDOW_MINUTES = 60;
/** Peers counted per minute at most: a flood of forged headers from many peers cannot grow memory. */
const MAX_PEERS = 64;

type Minute = { at: number; total: number; forwarded: Map<string, number> };

export class ForwardedWatch {
  private readonly minutes: Minute[] = [];

  /** Counts one request; `untrustedPeer` is its peer when it carried X-Forwarded-For from outside `trusted_proxies`. */
  note(now: number, untrustedPeer: string | null): void {
    const at = Math.floor(now / MINUTE) * MINUTE;
    let minute = this.minutes.at(-1);
    if (!minute || minute.at !== at) {
      minute = { at, total: 0, forwarded: new Map() };
      this.minutes.push(minute);
      while (this.minutes.length > 0 && this.minutes[0]!.at <= at - WINDOW_MINUTES * MINUTE)
        this.minutes.shift();
    }
    minute.total++;
    if (untrustedPeer === null) return;
    const seen = minute.forwarded.get(untrustedPeer);
    if (seen !== undefined || minute.forwarded.size < MAX_PEERS)
      minute.forwarded.set(untrustedPeer, (seen ?? 0) + 1);
  }

  /**
   * The peer that forwarded the most requests in the last hour and is still not trusted (`trusted`
   * says, after a reload of mon.toml), with its share of all requests.
   */
  worst(now: number, trusted: (peer: string) => boolean): { address: string; sharePercent: number } | null {
    const since = Math.floor(now / MINUTE) * MINUTE - (WINDOW_MINUTES - 1) * MINUTE;
    let total = 0;
    const byPeer = new Map<string, number>();
    for (const minute of this.minutes) {
      if (minute.at < since) continue;
      total += minute.total;
      for (const [peer, n] of minute.forwarded) byPeer.set(peer, (byPeer.get(peer) ?? 0) + n);
    }
    let worst: { address: string; n: number } | null = null;
    for (const [address, n] of byPeer) {
      if (trusted(address)) continue;
      if (!worst || n > worst.n || (n === worst.n && address < worst.address)) worst = { address, n };
    }
    if (!worst || total === 0) return null;
    return { address: worst.address, sharePercent: Math.round((1000 * worst.n) / total) / 10 };
  }
}
