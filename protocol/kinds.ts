/**
 * Check kinds and the assertion keys each takes, without the schema library: the panel imports this
 * much and nothing heavier.
 */
export const checkKinds = ['http', 'tcp', 'dns', 'ping', 'domain', 'heartbeat'] as const;
export type CheckKind = (typeof checkKinds)[number];

/** The kinds whose runs connect to their target (dns asks the server's own resolvers; domain, RDAP). */
export const connectingKinds: readonly CheckKind[] = ['http', 'tcp', 'ping'];

/** What an assertion can test (protocol/check.ts `assertionSchema`): one of these, `equals` with `json` or alone. */
export const assertionKeys = [
  'status',
  'bodyContains',
  'bodyNotContains',
  'json',
  'equals',
  'responseTimeBelowMs',
] as const;
export type AssertionKey = (typeof assertionKeys)[number];

/**
 * Every field an assertion may have. A runner that meets another (a newer mon's assertion, on an older
 * agent, or stored before a downgrade) cannot say whether it holds: the agent leaves the check out
 * (agent/poll-answer.ts), and the run of a check that reaches a runner anyway fails (runners/assertions.ts).
 */
export const assertionFields: readonly string[] = [...assertionKeys, 'degraded'];

/** Which assertion keys each kind takes (`degraded` goes with any). */
export const allowedAssertions: Record<CheckKind, AssertionKey[]> = {
  http: ['status', 'bodyContains', 'bodyNotContains', 'json', 'equals', 'responseTimeBelowMs'],
  tcp: ['responseTimeBelowMs'],
  dns: ['equals', 'bodyContains', 'responseTimeBelowMs'],
  ping: ['responseTimeBelowMs'],
  domain: [],
  heartbeat: [],
};
