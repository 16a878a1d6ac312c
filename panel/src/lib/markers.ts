import type { ChangeRow, DeployRow } from '../../../protocol/deploys.ts';
import type { TimelineRow } from '../../../protocol/incidents.ts';

/**
 * Deploys and changes as marks on a time chart and in the list beside it. A push is code on its way,
 * not yet live: it is marked apart from a deploy.
 */
export type Marker = {
  ts: number;
  kind: 'deploy' | 'change' | 'push';
  /** One line: "deploy shop v2.3.1", "change: migration 0042". */
  label: string;
  by: string | null;
  url: string | null;
};

export function deployMarker(d: DeployRow): Marker {
  return { ts: d.ts, kind: 'deploy', label: `deploy ${d.service} ${d.version}`, by: d.by, url: d.url };
}

export function changeMarker(c: ChangeRow): Marker {
  const where = c.service ?? c.host;
  return {
    ts: c.ts,
    kind: c.kind,
    label: `${c.kind}${where ? ` ${where}` : ''}: ${c.what}`,
    by: c.by,
    url: c.url,
  };
}

/** Deploys and changes together, oldest first. */
export function markersOf(deploys: DeployRow[], changes: ChangeRow[]): Marker[] {
  return [...deploys.map(deployMarker), ...changes.map(changeMarker)].sort((a, b) => a.ts - b.ts);
}

/** The deploys, changes and pushes of an incident's timeline, oldest first. */
export function timelineMarkers(rows: TimelineRow[]): Marker[] {
  return rows
    .flatMap((r): Marker[] =>
      r.kind === 'deploy' || r.kind === 'change' || r.kind === 'push'
        ? [{ ts: r.ts, kind: r.kind, label: r.title, by: r.by, url: r.url }]
        : [],
    )
    .sort((a, b) => a.ts - b.ts);
}
