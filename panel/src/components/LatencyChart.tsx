import { useMemo } from 'react';
import type { Series } from '../../../protocol/reads.ts';
import { formatLatency } from '../lib/format.ts';
import type { Marker } from '../lib/markers.ts';
import TimeChart from './TimeChart.tsx';

const none: Marker[] = [];

/**
 * p50 and p95 response time per step (a UTC day's, or a local time's), with a mark per deploy and change.
 * Loaded lazily with uPlot.
 */
export default function LatencyChart({ series, markers = none }: { series: Series; markers?: Marker[] }) {
  const lines = useMemo(
    () => [
      { label: 'p50', values: series.p50, color: '--accent', width: 2 },
      { label: 'p95', values: series.p95, color: '--degraded', width: 1.5, dash: true },
    ],
    [series],
  );
  return (
    <TimeChart
      x={series.x}
      stepMs={series.stepMs}
      lines={lines}
      format={formatLatency}
      minTop={10}
      markers={markers}
      label={`Response time chart, p50 and p95${markers.length ? `, ${markers.length} deploys and changes marked` : ''}`}
    />
  );
}
