import { lazy, Suspense, useMemo } from 'react';
import type { IncidentHost } from '../../../../protocol/hosts.ts';
import { Loading } from '../../components/Feedback.tsx';
import { Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { chartTimes } from '../../lib/chart-time.ts';
import { formatBytes, formatCpu, formatPercent, formatTime } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { logLine, peak } from './hosts.ts';

// uPlot loads only when a chart is shown.
const TimeChart = lazy(() => import('../../components/TimeChart.tsx'));

/**
 * The incident's hosts around its start (marked on the charts): CPU and memory, the largest containers
 * and units, and the agent's log lines, shown as the plain text the agent sent.
 */
export function IncidentHosts({ hosts, startedAt }: { hosts: IncidentHost[]; startedAt: number }) {
  if (hosts.length === 0) return null;
  return (
    <section className="card" aria-labelledby="hosts-title" data-testid="incident-hosts">
      <div className="card-head">
        <h2 id="hosts-title">Hosts</h2>
        <span className="muted small">
          around the start, marked on the charts; {chartTimes(hosts[0]!.stepMs)}
        </span>
      </div>
      <div className="card-body">
        {hosts.map((h) => (
          <HostAround key={h.name} host={h} startedAt={startedAt} />
        ))}
      </div>
    </section>
  );
}

function HostAround({ host: h, startedAt }: { host: IncidentHost; startedAt: number }) {
  const lines = useMemo(
    () => ({
      cpu: [{ label: 'CPU', values: h.cpu, color: '--accent', width: 2 }],
      memory: [{ label: 'memory', values: h.memory, color: '--accent', width: 2 }],
    }),
    [h],
  );
  const items = [
    ...h.containers.map((c) => ({ kind: 'container', ...c })),
    ...h.units.map((u) => ({ kind: 'unit', ...u })),
  ];
  return (
    <div className="incident-host" data-host={h.name}>
      <h3>
        <Link href={`/hosts/${enc(h.name)}`}>{h.name}</Link>
      </h3>
      <div className="incident-host-charts">
        {(['cpu', 'memory'] as const).map((metric) => (
          <figure key={metric} className="incident-host-chart" data-chart={metric}>
            <figcaption className="small muted">{metric === 'cpu' ? 'CPU busy' : 'Memory in use'}</figcaption>
            <div className="chart compact">
              {h[metric].every((v) => v === null) ? (
                <p className="empty">No samples around the start.</p>
              ) : (
                <Suspense fallback={<Loading label="Loading chart…" />}>
                  <TimeChart
                    x={h.x}
                    stepMs={h.stepMs}
                    lines={lines[metric]}
                    format={formatPercent}
                    top={100}
                    height={180}
                    momentAt={startedAt}
                    momentLabel="the incident started"
                    label={`${metric === 'cpu' ? 'CPU' : 'Memory'} of ${h.name} around the start of the incident, which is marked`}
                  />
                </Suspense>
              )}
            </div>
          </figure>
        ))}
      </div>
      {items.length > 0 ? (
        <Table
          testId={`largest-${h.name}`}
          head={
            <>
              <th>Largest around the start</th>
              <th className="num">Memory at most</th>
              <th className="num">CPU at most</th>
            </>
          }
        >
          {items.map((i) => (
            <tr key={`${i.kind}:${i.name}`} data-item={i.name}>
              <td className="name-cell">
                <span className="badge">{i.kind}</span> <span className="mono">{i.name}</span>
              </td>
              <td className="num">{formatBytes(peak(i.memMax))}</td>
              <td className="num">{formatCpu(peak(i.cpuMax))}</td>
            </tr>
          ))}
        </Table>
      ) : null}
      <h4>Agent log</h4>
      <p className="muted small">
        Lines the mon agent on {h.name} logged from 15 minutes before the start to 5 minutes after, as it sent
        them (plain text, not checked by mon).
      </p>
      {h.logs.length === 0 ? (
        <p className="muted small">The agent logged nothing then.</p>
      ) : (
        <pre className="agent-log" data-testid={`agent-log-${h.name}`}>
          {h.logs.map((l) => logLine(l, formatTime)).join('\n')}
        </pre>
      )}
    </div>
  );
}
