/**
 * Check kinds and the assertion keys each takes, without the schema library: the panel imports this
 * much and nothing heavier.
 */
export const checkKinds = ['http', 'tcp', 'dns', 'ping', 'domain', 'heartbeat'] as const;
export type CheckKind = (typeof checkKinds)[number];

/** The kinds whose runs connect to their target (dns asks the server's own resolvers; domain, RDAP). */
export const connectingKinds: readonly CheckKind[] = ['http', 'tcp', 'ping'];

export type AssertionKey =
  | 'status'
  | 'bodyContains'
  | 'bodyNotContains'
  | 'json'
  | 'equals'
  | 'responseTimeBelowMs';

/** Which assertion keys each kind takes (`degraded` goes with any). */
export const allowedAssertions: Record<CheckKind, AssertionKey[]> = {
  http: ['status', 'bodyContains', 'bodyNotContains', 'json', 'equals', 'responseTimeBelowMs'],
  tcp: ['responseTimeBelowMs'],
  dns: ['equals', 'bodyContains', 'responseTimeBelowMs'],
  ping: ['responseTimeBelowMs'],
  domain: [],
  heartbeat: [],
};
