import type { CheckStatus } from '../protocol/reads.ts';

/**
 * The per-check series of /metrics, written straight into Prometheus text from the checks in the
 * engine's memory at each scrape: no database read, no state kept between scrapes. Not prom-client
 * gauges: at 10,000 checks their per-series label hashing and formatting block the event loop for
 * about 250 ms a scrape; this takes 20 to 80 ms (measured on 2 busy cores).
 */

/** What /metrics shows of one check. */
export type CheckSample = {
  name: string;
  service: string;
  kind: string;
  status: CheckStatus;
  /** The last run's latency; null before the first run or when the run had none. */
  latencyMs: number | null;
  /** The certificate or domain registration expiry its last runs saw. */
  expiry: { kind: 'certificate' | 'domain'; expires: number } | null;
};

/**
 * Checks shown one by one at most (up to 8 series each, some 6 MB of text at this many). Beyond, the
 * first by name are shown and `mon_checks_omitted` counts the rest. docs/operating.md says so.
 */
export const MAX_CHECKS_SHOWN = 10_000;

/** `mon_check_status` is a state set: a series per status, 1 on the current one. */
const statusTable: Record<CheckStatus, true> = { up: true, down: true, degraded: true, unknown: true };
const statuses = Object.keys(statusTable) as CheckStatus[];

/** The per-check families, each a gauge with its HELP text and its series of one check. */
const families: { name: string; help: string; series(c: CheckSample, labels: string): string[] }[] = [
  {
    name: 'mon_check_up',
    help: '1 while the check is up, 0 otherwise.',
    series: (c, labels) => [`{${labels}} ${c.status === 'up' ? 1 : 0}`],
  },
  {
    name: 'mon_check_status',
    help: "The check's status: 1 on the series of its current status, 0 on the others.",
    series: (c, labels) => statuses.map((s) => `{${labels},status="${s}"} ${c.status === s ? 1 : 0}`),
  },
  {
    name: 'mon_check_latency_seconds',
    help: "The latency of the check's last run.",
    series: (c, labels) => (c.latencyMs === null ? [] : [`{${labels}} ${c.latencyMs / 1000}`]),
  },
  {
    name: 'mon_check_cert_expiry_timestamp_seconds',
    help: 'When the certificate an HTTPS check last saw expires, in Unix time.',
    series: (c, labels) =>
      c.expiry?.kind === 'certificate' ? [`{${labels}} ${c.expiry.expires / 1000}`] : [],
  },
  {
    name: 'mon_check_domain_expiry_timestamp_seconds',
    help: 'When the registration a domain check last saw expires, in Unix time.',
    series: (c, labels) => (c.expiry?.kind === 'domain' ? [`{${labels}} ${c.expiry.expires / 1000}`] : []),
  },
];

/** The per-check families in Prometheus text, ending in a newline. */
export function checkSeriesText(all: readonly CheckSample[]): string {
  const shown =
    all.length <= MAX_CHECKS_SHOWN
      ? all
      : [...all].sort((a, b) => (a.name < b.name ? -1 : 1)).slice(0, MAX_CHECKS_SHOWN);
  const labels = shown.map(
    (c) => `check="${labelValue(c.name)}",service="${labelValue(c.service)}",kind="${labelValue(c.kind)}"`,
  );
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${family.help}`, `# TYPE ${family.name} gauge`);
    shown.forEach((c, i) => {
      for (const series of family.series(c, labels[i]!)) lines.push(family.name + series);
    });
  }
  lines.push(
    `# HELP mon_checks_omitted Checks beyond the first ${MAX_CHECKS_SHOWN} by name, not shown one by one.`,
    '# TYPE mon_checks_omitted gauge',
    `mon_checks_omitted ${all.length - shown.length}`,
  );
  return `${lines.join('\n')}\n`;
}

/** A label value as the text format writes it: backslash, double quote and line feed escaped. */
function labelValue(value: string): string {
  if (!/[\\"\n]/.test(value)) return value;
  return value.replace(/[\\"\n]/g, (ch) => (ch === '\n' ? '\\n' : `\\${ch}`));
}
