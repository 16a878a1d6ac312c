/** Shapes of the JSON API's check reads shared by the server and the panel (SPEC "Check read models"). */

/** A check's chart: `x` step starts, latency percentiles and command values per step. */
export type Series = {
  x: number[];
  stepMs: number;
  p50: (number | null)[];
  p95: (number | null)[];
  value: (number | null)[];
};
