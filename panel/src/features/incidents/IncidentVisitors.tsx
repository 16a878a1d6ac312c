import { lazy, Suspense, useMemo } from 'react';
import type { IncidentVisitors as Visitors } from '../../../../protocol/analytics.ts';
import { Loading } from '../../components/Feedback.tsx';
import { enc } from '../../lib/api.ts';
import { chartTimes } from '../../lib/chart-time.ts';
import { Link } from '../../lib/router.tsx';

// uPlot loads only when a chart is shown.
const TimeChart = lazy(() => import('../../components/TimeChart.tsx'));

const formatVisitors = (v: number) => String(Math.round(v));

/**
 * The visitors of the service's site around the incident, its span shaded: how many people it reached.
 * Shown only when one of its services has a site.
 */
export function IncidentVisitors({
  visitors: v,
  startedAt,
  resolvedAt,
}: {
  visitors: Visitors | null;
  startedAt: number;
  resolvedAt: number | null;
}) {
  const lines = useMemo(
    () => (v ? [{ label: 'visitors', values: v.visitors, color: '--accent', width: 2 }] : []),
    [v],
  );
  const span = useMemo(
    () => ({ from: startedAt, to: resolvedAt ?? Date.now(), label: 'the incident' }),
    [startedAt, resolvedAt],
  );
  if (!v) return null;
  return (
    <section className="card" aria-labelledby="visitors-title" data-testid="incident-visitors">
      <div className="card-head">
        <h2 id="visitors-title">Visitors</h2>
        <span className="muted small">
          of <Link href={`/analytics?site=${enc(v.site)}`}>{v.site}</Link> around the incident, shaded;{' '}
          {chartTimes(v.stepMs)}
        </span>
      </div>
      <div className="card-body">
        <p data-testid="visitors-during">
          <strong>
            {v.during} {v.during === 1 ? 'visitor' : 'visitors'}
          </strong>{' '}
          during the incident{resolvedAt === null ? ' so far' : ''}.
        </p>
        <div className="chart compact">
          {v.visitors.every((n) => n === 0) ? (
            <p className="empty">No visitors around the incident.</p>
          ) : (
            <Suspense fallback={<Loading label="Loading chart…" />}>
              <TimeChart
                x={v.x}
                stepMs={v.stepMs}
                lines={lines}
                format={formatVisitors}
                minTop={5}
                height={180}
                span={span}
                label={`Visitors of ${v.site} around the incident, whose span is shaded`}
              />
            </Suspense>
          )}
        </div>
      </div>
    </section>
  );
}
