import type { IncidentSummary } from '../../../../protocol/incidents.ts';
import { IncidentState } from '../../components/IncidentState.tsx';
import { formatWhen } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { durationText, topCauseText } from '../incidents/describe.ts';

/** Open incidents, newest first, each with what most likely caused it. */
export function OpenIncidents({ incidents }: { incidents: IncidentSummary[] }) {
  if (incidents.length === 0) return null;
  return (
    <section className="card open-incidents" aria-labelledby="open-incidents">
      <div className="card-head">
        <h2 id="open-incidents">
          {incidents.length} open {incidents.length === 1 ? 'incident' : 'incidents'}
        </h2>
        <Link href="/incidents">All incidents</Link>
      </div>
      <ul className="incident-list">
        {incidents.map((i) => (
          <li key={i.id} data-incident={i.id}>
            <IncidentState incident={i} />
            <span className="incident-what">
              <Link href={`/incidents/${i.id}`}>{i.title}</Link>
              <span className="muted small">
                since {formatWhen(i.startedAt)} ({durationText(i)}) · {[...i.services, ...i.hosts].join(', ')}
              </span>
            </span>
            <span className={`incident-cause${i.topCause ? '' : ' muted'}`}>{topCauseText(i.topCause)}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
