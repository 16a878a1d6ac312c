import type { IncidentSummary } from '../../../protocol/incidents.ts';

type Shown = Pick<IncidentSummary, 'state' | 'acknowledgedAt' | 'inMaintenance'>;

const looks = {
  open: { word: 'Open', shape: '▼', status: 'down' },
  acknowledged: { word: 'Acknowledged', shape: '◆', status: 'degraded' },
  resolved: { word: 'Resolved', shape: '●', status: 'up' },
} as const;

/** Open, acknowledged (still open) or resolved. */
export function incidentState(i: Pick<IncidentSummary, 'state' | 'acknowledgedAt'>): keyof typeof looks {
  if (i.state === 'resolved') return 'resolved';
  return i.acknowledgedAt === null ? 'open' : 'acknowledged';
}

/** An incident's state as colour, shape and word, like a check's status; "maintenance" when opened in one. */
export function IncidentState({ incident }: { incident: Shown }) {
  const state = incidentState(incident);
  const look = looks[state];
  return (
    <span className="incident-state">
      <span className={`status status-${look.status}`} data-state={state}>
        <span className="shape" aria-hidden="true">
          {look.shape}
        </span>
        {look.word}
      </span>
      {incident.inMaintenance ? <span className="badge">maintenance</span> : null}
    </span>
  );
}
