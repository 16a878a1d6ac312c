import { lazy, Suspense, useEffect, useMemo } from 'react';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { IncidentState } from '../../components/IncidentState.tsx';
import { MarkerList } from '../../components/Markers.tsx';
import { StatusBadge } from '../../components/Status.tsx';
import { Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { formatWhen } from '../../lib/format.ts';
import { timelineMarkers } from '../../lib/markers.ts';
import { Link } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { newWindowHref } from '../windows/model.ts';
import { Causes } from './Causes.tsx';
import { Deliveries } from './Deliveries.tsx';
import { durationText } from './describe.ts';
import { hostNames, hostViews } from './hosts.ts';
import { IncidentHosts } from './IncidentHosts.tsx';
import { IncidentVisitors } from './IncidentVisitors.tsx';
import { useAcknowledge, useIncident } from './queries.ts';
import { Timeline } from './Timeline.tsx';
import './incidents.css';

// uPlot loads only when a chart is shown.
const LatencyChart = lazy(() => import('../../components/LatencyChart.tsx'));

/** One incident: what most likely caused it, what failed, response times around it, and its timeline. */
export default function IncidentPage({ id }: { id: string }) {
  const canWrite = useCanWrite();
  const incident = useIncident(id);
  const acknowledge = useAcknowledge(id);
  const markers = useMemo(
    () => (incident.data ? timelineMarkers(incident.data.timeline) : []),
    [incident.data],
  );
  const title = incident.data?.title;
  useEffect(() => {
    if (title !== undefined) document.title = `${title} · mon`;
  }, [title]);

  if (incident.isPending) return <Loading />;
  if (incident.isError) return <ReadError error={incident.error} />;
  const i = incident.data;
  const open = i.state === 'open';
  const hosts = hostNames(i.hosts);

  return (
    <>
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link href="/incidents">Incidents</Link> /
          </div>
          <h1 style={{ display: 'flex', gap: '0.6rem', alignItems: 'center', flexWrap: 'wrap' }}>
            {i.title} <IncidentState incident={i} />
          </h1>
          <p className="sub">
            Started {formatWhen(i.startedAt)} · {open ? 'open for' : 'lasted'} {durationText(i)}
            {i.resolvedAt !== null ? ` · resolved ${formatWhen(i.resolvedAt)}` : ''}
          </p>
          <p className="sub">
            {i.services.map((s, n) => (
              <span key={s}>
                {n > 0 ? ', ' : ''}
                <Link href={`/services/${enc(s)}`}>{s}</Link>
              </span>
            ))}
            {hosts.length > 0 ? `${i.services.length > 0 ? ' · ' : ''}hosts ` : ''}
            {hosts.map((h, n) => (
              <span key={h}>
                {n > 0 ? ', ' : ''}
                <Link href={`/hosts/${enc(h)}`}>{h}</Link>
              </span>
            ))}
          </p>
          {i.inMaintenance ? (
            <p className="sub">Opened during a maintenance window: nobody was notified.</p>
          ) : null}
          {i.acknowledgedAt !== null ? (
            <p className="sub" data-testid="acknowledged">
              Acknowledged by {i.acknowledgedBy ?? 'someone'} at {formatWhen(i.acknowledgedAt)}: reminders
              stopped.
            </p>
          ) : null}
        </div>
        {canWrite && open ? (
          <div className="actions">
            {i.services[0] ? (
              <Link className="button" href={newWindowHref('silence', i.services[0])}>
                Silence {i.services[0]}
              </Link>
            ) : hosts[0] ? (
              // A host's own incident (CPU, a disk, its agent silent) is held by a window on the host.
              <Link className="button" href={newWindowHref('silence', hosts[0], 'host')}>
                Silence {hosts[0]}
              </Link>
            ) : null}
            {i.acknowledgedAt === null ? (
              <button
                type="button"
                className="primary"
                disabled={acknowledge.isPending}
                onClick={() => acknowledge.mutate()}
              >
                Acknowledge
              </button>
            ) : null}
          </div>
        ) : null}
      </div>
      <ErrorBox error={acknowledge.error} title="Could not acknowledge." />

      <section className="card" aria-labelledby="causes-title">
        <div className="card-head">
          <h2 id="causes-title">Likely causes</h2>
          <span className="muted small">state changes before the start, best first</span>
        </div>
        <div className="card-body">
          <Causes causes={i.causes} />
        </div>
      </section>

      <section className="card" aria-labelledby="alerts-title">
        <div className="card-head">
          <h2 id="alerts-title">Alerts</h2>
          <span className="muted small">
            {i.failingCount} of {i.alertCount} failing
          </span>
        </div>
        <Table
          testId="alerts"
          head={
            <>
              <th>Status</th>
              <th>Alert</th>
              <th>Opened</th>
              <th>Recovered</th>
            </>
          }
        >
          {i.alerts.map((a) => (
            <tr key={a.key} data-alert={a.key}>
              <td>{a.status ? <StatusBadge status={a.status} /> : null}</td>
              <td className="name-cell">
                {a.check ? <Link href={`/checks/${a.check}`}>{a.name}</Link> : a.name}
                {a.impact ? <span className="badge">impact</span> : null}
                <div className="muted small">
                  {[a.service, a.host].filter((w) => w !== null).join(' · ')}
                  {a.detail ? ` · ${a.detail}` : ''}
                </div>
              </td>
              <td className="when">{formatWhen(a.openedAt)}</td>
              <td className="when">{a.recoveredAt === null ? 'failing' : formatWhen(a.recoveredAt)}</td>
            </tr>
          ))}
        </Table>
      </section>

      {i.responseTimes.length > 0 ? (
        <section className="card" aria-labelledby="latency-title">
          <div className="card-head">
            <h2 id="latency-title">Response time</h2>
            <span className="muted small">around the incident, with deploys and changes</span>
          </div>
          <div className="card-body">
            {i.responseTimes.map((r) => (
              <div key={r.check} className="incident-chart" data-check={r.check}>
                <h3>
                  <Link href={`/checks/${r.check}`}>{r.name}</Link>{' '}
                  <span className="muted small">{r.service}</span>
                </h3>
                <div className="chart">
                  {r.series.p50.every((v) => v === null) ? (
                    <p className="empty">No runs around it.</p>
                  ) : (
                    <Suspense fallback={<Loading label="Loading chart…" />}>
                      <LatencyChart series={r.series} markers={markers} />
                    </Suspense>
                  )}
                </div>
              </div>
            ))}
            <MarkerList markers={markers} />
          </div>
        </section>
      ) : null}

      <IncidentHosts hosts={hostViews(i.hosts)} startedAt={i.startedAt} />

      <IncidentVisitors visitors={i.visitors} startedAt={i.startedAt} resolvedAt={i.resolvedAt} />

      <Deliveries deliveries={i.deliveries} />

      <section className="card" aria-labelledby="timeline-title">
        <div className="card-head">
          <h2 id="timeline-title">Timeline</h2>
        </div>
        <Timeline rows={i.timeline} />
      </section>
    </>
  );
}
