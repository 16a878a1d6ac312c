import type { FastifyRequest } from 'fastify';
import { peerAddress, trustedProxies } from '../auth/client-address.ts';
import type { Deps } from '../deps.ts';

/** A host as a proxy may name it: a name or address, with a port or not; nothing that could carry a path. */
const hostPattern = /^(?:[a-z0-9.-]+|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * mon's public address for what it hands out to be used elsewhere (ping URLs, the agent's install
 * commands, the tracking snippet, the OpenID redirect): `[server] url`, else the address the request
 * came to. Behind a proxy of `trusted_proxies` that is the address the proxy says the client used
 * (`X-Forwarded-Proto` and `X-Forwarded-Host`, or `Forwarded`), not the proxy's way to mon: an https
 * site cannot load a tracking script from `http://127.0.0.1:8080`. Other peers' headers are ignored.
 */
export function publicBase(deps: Deps, request: FastifyRequest): string {
  const { url, trustedProxies: entries } = deps.config.current().server;
  if (url) return url.replace(/\/+$/, '');
  let proto: string = request.protocol;
  let host: string = request.host;
  if (trustedProxies(entries).has(peerAddress(request))) {
    const said = forwardedBy(request);
    if (said.proto === 'http' || said.proto === 'https') proto = said.proto;
    if (said.host && hostPattern.test(said.host)) host = said.host;
  }
  return `${proto}://${host}`;
}

/** What the proxy nearest the client says: the first value of each header. */
function forwardedBy(request: FastifyRequest): { proto?: string; host?: string } {
  const first = (name: string) => {
    const value = request.headers[name];
    const text = Array.isArray(value) ? value[0] : value;
    return text?.split(',')[0]?.trim() || undefined;
  };
  const proto = first('x-forwarded-proto')?.toLowerCase();
  const host = first('x-forwarded-host');
  if (proto || host) return { proto, host };
  // RFC 7239: `Forwarded: for=…;proto=https;host=mon.example.org`, the first element.
  const element = first('forwarded') ?? '';
  const said: { proto?: string; host?: string } = {};
  for (const pair of element.split(';')) {
    const [key = '', raw = ''] = pair.split('=', 2).map((s) => s.trim());
    const value = raw.replace(/^"(.*)"$/, '$1');
    if (key.toLowerCase() === 'proto') said.proto = value.toLowerCase();
    if (key.toLowerCase() === 'host') said.host = value;
  }
  return said;
}
