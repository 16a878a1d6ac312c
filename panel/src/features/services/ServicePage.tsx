import { useEffect } from 'react';
import { Loading, ReadError } from '../../components/Feedback.tsx';
import { Stat } from '../../components/Stat.tsx';
import { StatusBadge, severity } from '../../components/Status.tsx';
import { Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import {
  formatDuration,
  formatLatency,
  formatPercent,
  formatRelative,
  formatWhen,
  localTimes,
} from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { recoveryText, targetText, uptimeNote } from '../checks/describe.ts';
import { maintenanceText, newWindowHref } from '../windows/model.ts';
import { useService } from './queries.ts';

export function ServicePage({ name }: { name: string }) {
  const canWrite = useCanWrite();
  const service = useService(name);
  useEffect(() => {
    document.title = `${name} · mon`;
  }, [name]);

  if (service.isPending) return <Loading />;
  if (service.isError) return <ReadError error={service.error} />;
  const s = service.data;
  const checks = [...s.checks].sort(
    (a, b) => severity[a.status] - severity[b.status] || a.name.localeCompare(b.name),
  );

  return (
    <>
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link href="/">Overview</Link> /
          </div>
          <h1>
            {s.name} <StatusBadge status={s.status} />
          </h1>
          {s.managed ? <p className="sub">Defined in mon.toml.</p> : null}
          {s.maintenance ? (
            <p className="sub" data-testid="maintenance">
              <span className="badge">maintenance</span> {maintenanceText(s.maintenance)}
            </p>
          ) : null}
        </div>
        {canWrite ? (
          <div className="actions">
            <Link className="button" href={newWindowHref('silence', s.name)}>
              Silence
            </Link>
            <Link className="button" href={newWindowHref('maintenance', s.name)}>
              Schedule maintenance
            </Link>
            <Link className="button primary" href={`/checks/new?service=${enc(s.name)}`}>
              Add check
            </Link>
          </div>
        ) : null}
      </div>
      <div className="stats">
        <Stat label="Uptime 24 h" value={formatPercent(s.uptime.day)} note={uptimeNote(s.uptimeSpan.day)} />
        <Stat
          label="Uptime 30 d"
          value={formatPercent(s.uptime.month)}
          note={uptimeNote(s.uptimeSpan.month)}
        />
        <Stat
          label="Uptime 365 d"
          value={formatPercent(s.uptime.year)}
          note={uptimeNote(s.uptimeSpan.year)}
        />
        <Stat label="Checks" value={String(s.checks.length)} />
      </div>
      <section className="card">
        <div className="card-head">
          <h2>Checks</h2>
        </div>
        {checks.length === 0 ? (
          <p className="empty">This service has no checks.</p>
        ) : (
          <Table
            head={
              <>
                <th>Status</th>
                <th>Check</th>
                <th>Target</th>
                <th className="num">Latency</th>
                <th>Last run</th>
                <th>Expires</th>
              </>
            }
          >
            {checks.map((c) => (
              <tr key={c.id}>
                <td>
                  <StatusBadge status={c.status} recovering={c.recovering !== null} />
                  {c.recovering ? (
                    <div className="muted small">{recoveryText(c.recovering)}</div>
                  ) : c.since ? (
                    <div className="muted small" title={formatWhen(c.since)}>
                      for {formatDuration(Date.now() - c.since)}
                    </div>
                  ) : null}
                </td>
                <td className="name-cell">
                  <Link href={`/checks/${c.id}`}>{c.name}</Link>
                  <div className="muted small">
                    {c.kind}
                    {c.from ? ` from ${c.from}` : ''}
                    {c.managed ? ' · mon.toml' : c.hostDefined ? ' · checks.toml' : ''}
                  </div>
                </td>
                <td className="mono small name-cell">{targetText(c)}</td>
                <td className="num">{formatLatency(c.lastLatencyMs)}</td>
                <td className="small">
                  {c.lastRunAt ? formatWhen(c.lastRunAt) : <span className="muted">not yet</span>}
                  {c.lastDetail ? <div className="muted">{localTimes(c.lastDetail)}</div> : null}
                </td>
                <td className="small">{c.expiry ? formatRelative(c.expiry.expires) : '–'}</td>
              </tr>
            ))}
          </Table>
        )}
      </section>
    </>
  );
}
