import type { CheckDefinition, CheckKind } from '../protocol/check.ts';

/** What one run of a check found. Runners never throw: every failure is an outcome. */
export type RunOutcome = {
  status: 'up' | 'down' | 'degraded';
  /** Time to the answer (HTTP response, TCP connect, DNS answer, mean ping round trip); null when none came. */
  latencyMs: number | null;
  /** One human-readable line: "200 OK", "connection refused", "2 of 3 replies missing". */
  detail: string;
  /** The certificate or domain registration expiry observed by this run, when the kind observes one. */
  expiry?: { kind: 'certificate' | 'domain'; expires: number } | null;
  /** The number a command check printed (agent runs only). */
  value?: number | null;
};

export type RunContext = {
  /** Who runs the check, for details that tell the operator what to fix there. */
  runBy: 'server' | 'agent';
  /** The server's environment, for `${NAME}` in targets and header values. */
  env: Readonly<Record<string, string | undefined>>;
  /**
   * The only variables the check may use, for checks made in the panel or through the API (`[checks]
   * api_env`); absent for checks of mon.toml, which may use any.
   */
  allowedEnv?: readonly string[];
  /** Aborted at the check's timeout. */
  signal: AbortSignal;
  now: () => number;
  /** Resolvers to ask instead of the host's configured ones (tests point this at a loopback DNS server). */
  dnsServers?: string[];
  /** RDAP bootstrap URL (IANA's dns.json by default); tests point this at a loopback server. */
  rdapBootstrapUrl?: string;
  /** Extra trusted root certificates (PEM) on top of Node's store, from the server's configuration. */
  extraCa?: string[];
};

/** Runs one check. One implementation per kind that the server runs (heartbeats are pushed, not run). */
export type Runner = (check: CheckDefinition, ctx: RunContext) => Promise<RunOutcome>;
export type ServerRunKind = Exclude<CheckKind, 'heartbeat'>;
