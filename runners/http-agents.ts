import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { guardedLookup } from './link-local.ts';

/** How a check's requests connect: its extra roots, whether it may reach link-local addresses, its resolvers. */
export type Via = {
  extraCa?: string[] | undefined;
  allowLinkLocal: boolean;
  dnsServers?: string[] | undefined;
};

/** Connections idle this long are closed (below the 5 s keep-alive of common servers). */
const IDLE_MS = 4000;
/** Idle connections kept per origin at most; more are closed when their responses end. */
const MAX_IDLE_PER_ORIGIN = 8;
/** A connection is not reused once this old, so that a renewed certificate is seen within a minute. */
export const MAX_CONNECTION_AGE_MS = 60_000;
/** Agents kept, one per way of connecting (the configuration has one set of roots; few checks allow link-local). */
const MAX_AGENTS = 8;

/**
 * Keep-alive agents: Node's agent pools connections per origin (host, port and TLS options). Busy
 * connections are bounded by the engine's concurrency, idle ones by MAX_IDLE_PER_ORIGIN and IDLE_MS.
 * A fresh connection per run cost ~11 KB of garbage and ~80 µs of CPU more per run, most of the
 * engine's load at 1,000 runs/s; latency is then the time to the response on a warm connection.
 */
const born = new WeakMap<object, number>();
function keepAlive<A extends http.Agent>(agent: A): A {
  const create = agent.createConnection.bind(agent);
  agent.createConnection = (options, callback) => {
    const socket = create(options, callback);
    if (socket) born.set(socket, Date.now());
    return socket;
  };
  const keep = agent.keepSocketAlive.bind(agent) as (socket: Duplex) => boolean;
  (agent as unknown as { keepSocketAlive: (socket: Duplex) => boolean }).keepSocketAlive = (socket) => {
    if (Date.now() - (born.get(socket) ?? 0) >= MAX_CONNECTION_AGE_MS || !keep(socket)) return false;
    // The idle timeout, set here rather than as the agent's `timeout` option: that option also arms a
    // timeout on every request, which kept each request's objects alive long enough to be promoted
    // out of the young generation (~3x the old-space growth at 1,000 runs/s).
    const { timeout } = socket as Socket;
    if (!timeout || timeout > IDLE_MS) (socket as Socket).setTimeout(IDLE_MS);
    return true;
  };
  return agent;
}
const agentOptions = { keepAlive: true, maxFreeSockets: MAX_IDLE_PER_ORIGIN };

/**
 * By scheme, extra roots, link-local permission and resolvers: a connection verified against one set of
 * roots never serves another, and one opened for a check that may reach link-local addresses never
 * serves a check that may not (the lookup, and with it the address check, runs per new connection).
 */
const agents = new Map<string, http.Agent>();
export function agentFor(secure: boolean, via: Via): http.Agent {
  const roots = secure ? (via.extraCa ?? []).join('\n') : '';
  const key = `${secure}|${via.allowLinkLocal}|${via.dnsServers?.join(',') ?? ''}|${roots}`;
  let agent = agents.get(key);
  if (!agent) {
    if (agents.size >= MAX_AGENTS) {
      const [oldKey, old] = agents.entries().next().value!;
      agents.delete(oldKey);
      for (const sockets of Object.values(old.freeSockets)) for (const s of sockets ?? []) s.destroy();
    }
    const lookup = guardedLookup(via.allowLinkLocal, via.dnsServers);
    agent = keepAlive(secure ? tlsAgent(via.extraCa, lookup) : new http.Agent({ ...agentOptions, lookup }));
    agents.set(key, agent);
  }
  return agent;
}

function tlsAgent(extraCa: string[] | undefined, lookup: ReturnType<typeof guardedLookup>): https.Agent {
  // Node's default roots (bundled, plus system or extra ones when Node is told to use them) and extraCa.
  const ca = [...tls.getCACertificates('default'), ...(extraCa ?? [])];
  const secureContext = tls.createSecureContext({ ca });
  // No session resumption: each new connection verifies the certificate in a full handshake.
  return new https.Agent({
    ...agentOptions,
    lookup,
    secureContext,
    rejectUnauthorized: true,
    maxCachedSessions: 0,
  });
}
