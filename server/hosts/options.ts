/** Settings of hosts that only tests give (createTestServer's `hosts`); production never sets them. */
export type HostsOptions = {
  /**
   * The sampling interval the poll tells agents (`settings.sampleEveryMs`), instead of SAMPLE_EVERY_MS
   * (15 s): end-to-end tests with a real agent sample every second rather than wait 15 s per sample.
   */
  sampleEveryMs?: number;
};
