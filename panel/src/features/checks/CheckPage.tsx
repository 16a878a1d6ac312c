import { lazy, Suspense, useEffect, useMemo, useState } from 'react';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { MarkerList } from '../../components/Markers.tsx';
import { RangePicker } from '../../components/RangePicker.tsx';
import { Stat } from '../../components/Stat.tsx';
import { StatusBadge } from '../../components/Status.tsx';
import { enc } from '../../lib/api.ts';
import { timesNote } from '../../lib/chart-time.ts';
import {
  formatDuration,
  formatLatency,
  formatPercent,
  formatTime,
  formatWhen,
  localTimes,
} from '../../lib/format.ts';
import { markersOf } from '../../lib/markers.ts';
import { Link, useLocation } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { Beats } from './Beats.tsx';
import { readOnlyReason, recoveryText, targetText, uptimeNote } from './describe.ts';
import { Expiry } from './Expiry.tsx';
import { HeartbeatCard } from './HeartbeatCard.tsx';
import { History } from './History.tsx';
import { type Range, ranges } from './keys.ts';
import { useCheckDefinition, useCheckDetail, useDeleteCheck } from './queries.ts';
import './checks.css';

// uPlot loads only when a chart is shown.
const LatencyChart = lazy(() => import('../../components/LatencyChart.tsx'));

export function CheckPage({ id }: { id: string }) {
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const range = (ranges as readonly string[]).includes(query.get('range') ?? '')
    ? (query.get('range') as Range)
    : '24h';
  const detail = useCheckDetail(id, range);
  const definition = useCheckDefinition(id);
  const [confirming, setConfirming] = useState(false);
  const remove = useDeleteCheck(id, detail.data?.service.name);
  const markers = useMemo(
    () => (detail.data ? markersOf(detail.data.deploys, detail.data.changes) : []),
    [detail.data],
  );

  const name = detail.data?.check.name;
  useEffect(() => {
    if (name !== undefined) document.title = `${name} · mon`;
  }, [name]);

  if (detail.isPending) return <Loading />;
  if (detail.isError) return <ReadError error={detail.error} />;
  const d = detail.data;
  const c = d.check;
  const reason = readOnlyReason(definition.data ?? c, c.from);

  return (
    <>
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link href="/">Overview</Link> /{' '}
            <Link href={`/services/${enc(d.service.name)}`}>{d.service.name}</Link> /
          </div>
          <h1 style={{ display: 'flex', gap: '0.6rem', alignItems: 'center', flexWrap: 'wrap' }}>
            {c.name} <StatusBadge status={c.status} recovering={c.recovering !== null} />
          </h1>
          <p className="sub">
            <span className="badge">{c.kind}</span> <span className="mono">{targetText(c)}</span>
            {c.kind !== 'heartbeat' && c.everyMs ? ` · every ${formatDuration(c.everyMs)}` : ''}
            {c.from ? ` · from ${c.from}` : ''}
            {c.since ? ` · ${c.status} since ${formatWhen(c.since)}` : ''}
          </p>
          {c.recovering ? (
            <p className="sub" data-testid="recovering">
              Passing again since {formatWhen(c.recovering.since)}: {recoveryText(c.recovering)}.
            </p>
          ) : null}
        </div>
        {canWrite && !reason ? (
          <div className="actions">
            <Link className="button" href={`/checks/${enc(id)}/edit`}>
              Edit
            </Link>
            {confirming ? (
              <Confirm
                question="Delete this check and its history?"
                action="Delete"
                busy={remove.isPending}
                onConfirm={() => remove.mutate()}
                trigger="delete-check"
                onCancel={() => setConfirming(false)}
              />
            ) : (
              <button type="button" id="delete-check" className="danger" onClick={() => setConfirming(true)}>
                Delete…
              </button>
            )}
          </div>
        ) : null}
      </div>
      {reason ? (
        <div className="alert" data-testid="read-only">
          {reason}
        </div>
      ) : null}
      <ErrorBox error={remove.error} title="Could not delete." />

      <section className="card">
        <div className="card-head">
          <h2>{d.beats.length === 1 ? 'Last run' : `Last ${d.beats.length} runs`}</h2>
          <span className="muted small">
            {c.lastRunAt ? `last ${formatWhen(c.lastRunAt)}` : 'no run yet'}
            {c.lastDetail ? ` · ${localTimes(c.lastDetail)}` : ''}
          </span>
        </div>
        <div className="card-body">
          <Beats beats={d.beats} gaps={d.gaps} />
        </div>
      </section>

      <div className="stats">
        <Stat label="Uptime 24 h" value={formatPercent(d.uptime?.day)} note={uptimeNote(d.uptimeSpan.day)} />
        <Stat
          label="Uptime 30 d"
          value={formatPercent(d.uptime?.month)}
          note={uptimeNote(d.uptimeSpan.month)}
        />
        <Stat
          label="Uptime 365 d"
          value={formatPercent(d.uptime?.year)}
          note={uptimeNote(d.uptimeSpan.year)}
        />
        <Stat label="Average 24 h" value={formatLatency(d.dayAverageMs)} />
        {c.lastValue !== null ? <Stat label="Last value" value={String(c.lastValue)} /> : null}
      </div>

      {c.kind === 'heartbeat' ? <HeartbeatCard check={c} canWrite={canWrite} managed={!!reason} /> : null}
      {(d.expiry ?? c.expiry) ? <Expiry expiry={(d.expiry ?? c.expiry)!} /> : null}

      <section className="card">
        <div className="card-head">
          <h2>Response time</h2>
          <RangePicker ranges={ranges} value={range} label="Time range" />
        </div>
        <div className="card-body chart">
          {d.series.x.length === 0 || d.series.p50.every((v) => v === null) ? (
            <p className="empty">No runs in this range.</p>
          ) : (
            <Suspense fallback={<Loading label="Loading chart…" />}>
              <LatencyChart series={d.series} markers={markers} />
            </Suspense>
          )}
          <MarkerList markers={markers} />
        </div>
      </section>

      <History id={id} />
      <p className="muted small" data-testid="times-note">
        {timesNote(d.series.stepMs)}; now {formatTime(Date.now())}.
      </p>
    </>
  );
}
