import type { IncidentHost } from '../../../../protocol/hosts.ts';

/**
 * An incident's hosts: the list's summaries name them, the read of one incident shows each around its
 * start (IncidentHost). These take either, so that every screen reads `hosts` the same way.
 */
type Hosts = readonly (string | IncidentHost)[] | undefined;

export function hostViews(hosts: Hosts): IncidentHost[] {
  return (hosts ?? []).filter((h): h is IncidentHost => typeof h !== 'string');
}

export function hostNames(hosts: Hosts): string[] {
  return (hosts ?? []).map((h) => (typeof h === 'string' ? h : h.name));
}

/** The highest value of a series, or null when it has none. */
export function peak(values: readonly (number | null)[]): number | null {
  let top: number | null = null;
  for (const v of values) if (v !== null && (top === null || v > top)) top = v;
  return top;
}

/** An agent log line as plain text: time, level, words. */
export function logLine(line: IncidentHost['logs'][number], time: (ms: number) => string): string {
  return `${time(line.ts)}  ${line.level.toUpperCase().padEnd(5)}  ${line.text}`;
}
