import { lazy, Suspense, useMemo } from 'react';
import type { AnalyticsSeries } from '../../../../protocol/analytics.ts';
import { Loading } from '../../components/Feedback.tsx';
import { chartTimes } from '../../lib/chart-time.ts';
import { formatCount, stepWords } from './describe.ts';

// uPlot loads only when a chart is shown.
const TimeChart = lazy(() => import('../../components/TimeChart.tsx'));

/** Visitors and page views per step of the range (an hour up to two days, a UTC day beyond). */
export function TrafficChart({ series }: { series: AnalyticsSeries }) {
  const lines = useMemo(
    () => [
      { label: 'visitors', values: series.visitors, color: '--accent', width: 2 },
      { label: 'page views', values: series.views, color: '--degraded' },
    ],
    [series],
  );
  return (
    <figure className="analytics-chart" data-chart="traffic">
      <figcaption className="muted small" data-testid="chart-times">
        Visitors and page views per {stepWords(series.stepMs)}; {chartTimes(series.stepMs)}
      </figcaption>
      <div className="chart">
        <Suspense fallback={<Loading label="Loading chart…" />}>
          <TimeChart
            x={series.x}
            stepMs={series.stepMs}
            lines={lines}
            format={formatCount}
            minTop={5}
            label={`Visitors and page views per ${stepWords(series.stepMs)} over the range`}
          />
        </Suspense>
      </div>
    </figure>
  );
}
