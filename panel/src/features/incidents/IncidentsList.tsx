import { useEffect } from 'react';
import { Loading, ReadError } from '../../components/Feedback.tsx';
import { IncidentState } from '../../components/IncidentState.tsx';
import { RangePicker } from '../../components/RangePicker.tsx';
import { Table } from '../../components/Table.tsx';
import { formatWhen } from '../../lib/format.ts';
import { Link, useLocation } from '../../lib/router.tsx';
import { durationText, topCauseText } from './describe.ts';
import { type IncidentRange, incidentRanges } from './keys.ts';
import { useIncidents } from './queries.ts';
import './incidents.css';

/** Open incidents on top, then those resolved in the range, newest first (the order of the read). */
export default function IncidentsList() {
  const { query } = useLocation();
  const range = (incidentRanges as readonly string[]).includes(query.get('range') ?? '')
    ? (query.get('range') as IncidentRange)
    : '30d';
  const incidents = useIncidents(range);
  useEffect(() => {
    document.title = 'Incidents · mon';
  }, []);

  if (incidents.isPending) return <Loading />;
  if (incidents.isError) return <ReadError error={incidents.error} />;
  const list = incidents.data.incidents;
  const open = list.filter((i) => i.state === 'open').length;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Incidents</h1>
          <p className="sub" data-testid="incidents-summary">
            {open === 0 ? 'No open incident.' : `${open} open ${open === 1 ? 'incident' : 'incidents'}.`}
          </p>
        </div>
        <RangePicker ranges={incidentRanges} value={range} label="Resolved incidents of the last" />
      </div>
      {list.length === 0 ? (
        <div className="card empty">
          <h2>No incidents</h2>
          <p>
            A check that goes down opens an incident, with what most likely caused it. None opened in the last{' '}
            {range}.
          </p>
        </div>
      ) : (
        <section className="card">
          <Table
            testId="incidents"
            head={
              <>
                <th>State</th>
                <th>Incident</th>
                <th>Started</th>
                <th>Lasted</th>
                <th>Likely cause</th>
              </>
            }
          >
            {list.map((i) => (
              <tr key={i.id} data-incident={i.id} data-state={i.state}>
                <td>
                  <IncidentState incident={i} />
                </td>
                <td className="name-cell">
                  <Link href={`/incidents/${i.id}`}>{i.title}</Link>
                  <div className="muted small">
                    {[...i.services, ...i.hosts].join(', ')}
                    {i.state === 'open' ? ` · ${i.failingCount} of ${i.alertCount} failing` : ''}
                  </div>
                </td>
                <td className="when">{formatWhen(i.startedAt)}</td>
                <td className="when">{durationText(i)}</td>
                <td className={i.topCause ? undefined : 'muted'}>{topCauseText(i.topCause)}</td>
              </tr>
            ))}
          </Table>
        </section>
      )}
    </>
  );
}
