import { dnsRunner } from './dns.ts';
import { domainRunner } from './domain.ts';
import { httpRunner } from './http.ts';
import { pingRunner } from './ping.ts';
import type { Runner, ServerRunKind } from './run.ts';
import { tcpRunner } from './tcp.ts';

/** The runner of each check kind the server runs (heartbeats are pushed, not run). */
export const runners: Record<ServerRunKind, Runner> = {
  http: httpRunner,
  tcp: tcpRunner,
  dns: dnsRunner,
  ping: pingRunner,
  domain: domainRunner,
};
