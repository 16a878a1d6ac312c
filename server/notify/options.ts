import type { ApiBases } from './channels/kind.ts';

/** Settings of notifications that only tests give (createTestServer's `notify`). */
export type NotifyOptions = {
  /** The platforms' API addresses, pointed at loopback receivers; see `ApiBases`. */
  bases?: Partial<ApiBases>;
  /** DNS servers that resolve channel hosts instead of the system's (a test's own server). */
  dnsServers?: string[];
  /** Certificates (PEM) that SMTP servers may present besides the system's roots: a test CA. */
  extraCa?: string[];
};
