import { lazy, type ReactNode, Suspense, useMemo } from 'react';
import type { HostAlerts, HostNow, HostSeries } from '../../../../protocol/hosts.ts';
import { Loading } from '../../components/Feedback.tsx';
import type { ChartLine } from '../../components/TimeChart.tsx';
import { formatBytes, formatPercent, formatRate } from '../../lib/format.ts';
import { thresholdText } from './describe.ts';

// uPlot loads only when a chart is shown.
const TimeChart = lazy(() => import('../../components/TimeChart.tsx'));

const formatLoad = (v: number) => v.toFixed(2);
const formatCelsius = (v: number) => `${Math.round(v)} °C`;

type Props = { series: HostSeries; now: HostNow | null; alerts: HostAlerts; cores: number | null };

/**
 * A host's charts over the chosen range: CPU (mean and maximum), memory, swap (only with swap), the
 * fullest disk with the filesystems now, disk I/O, bandwidth, load and temperature (only with sensors).
 */
export function HostCharts({ series: s, now, alerts, cores }: Props) {
  const lines = useMemo(
    () => ({
      cpu: [
        { label: 'mean', values: s.cpu, color: '--accent', width: 2 },
        { label: 'max', values: s.cpuMax, color: '--degraded', dash: true },
      ],
      memory: [{ label: 'used', values: s.memory, color: '--accent', width: 2 }],
      swap: [{ label: 'used', values: s.swap, color: '--accent', width: 2 }],
      disk: [{ label: 'fullest', values: s.disk, color: '--accent', width: 2 }],
      io: [
        { label: 'read', values: s.diskRead, color: '--accent', width: 2 },
        { label: 'write', values: s.diskWrite, color: '--degraded' },
      ],
      net: [
        { label: 'received', values: s.netRx, color: '--accent', width: 2 },
        { label: 'sent', values: s.netTx, color: '--degraded' },
      ],
      load: [
        { label: '1 min', values: s.load1, color: '--accent', width: 2 },
        { label: '5 min', values: s.load5, color: '--degraded' },
        { label: '15 min', values: s.load15, color: '--muted', dash: true },
      ],
      temperature: [{ label: 'hottest', values: s.temperature, color: '--accent', width: 2 }],
    }),
    [s],
  );
  const chart = (
    key: string,
    label: string,
    chartLines: ChartLine[],
    format: (v: number) => string,
    scale: { top?: number; minTop?: number },
  ) => (
    <Chart x={s.x} stepMs={s.stepMs} lines={chartLines} format={format} label={label} {...scale} key={key} />
  );
  return (
    <div className="host-charts">
      <ChartCard
        id="cpu"
        title="CPU"
        now={formatPercent(now?.cpu)}
        note={`of all ${cores ? `${cores} ` : ''}cores busy, mean and maximum per step; alert ${thresholdText(alerts.cpu, '%')}`}
      >
        {chart('cpu', 'CPU busy, mean and maximum', lines.cpu, formatPercent, { top: 100 })}
      </ChartCard>
      <ChartCard
        id="memory"
        title="Memory"
        now={now?.memory ? `${formatPercent(now.memory.percent)} of ${formatBytes(now.memory.total)}` : '–'}
        note={`in use, without cache; alert ${thresholdText(alerts.memory, '%')}`}
      >
        {chart('memory', 'Memory in use', lines.memory, formatPercent, { top: 100 })}
      </ChartCard>
      {s.swap.length > 0 ? (
        <ChartCard
          id="swap"
          title="Swap"
          now={now?.swap ? `${formatPercent(now.swap.percent)} of ${formatBytes(now.swap.total)}` : '–'}
          note={`alert ${thresholdText(alerts.swap, '%')}`}
        >
          {chart('swap', 'Swap in use', lines.swap, formatPercent, { top: 100 })}
        </ChartCard>
      ) : null}
      <ChartCard
        id="disk"
        title="Disk"
        now={formatPercent(fullestDisk(now))}
        note={`the fullest filesystem not ignored; alert ${thresholdText(alerts.disk, '%')}, at once`}
        wide
      >
        {chart('disk', 'Fullest filesystem', lines.disk, formatPercent, { top: 100 })}
        <Filesystems now={now} />
      </ChartCard>
      <ChartCard
        id="io"
        title="Disk I/O"
        now={
          now?.diskIo
            ? `${formatRate(now.diskIo.readBps)} read, ${formatRate(now.diskIo.writeBps)} written`
            : '–'
        }
        note="over physical disks"
      >
        {chart('io', 'Disk reads and writes per second', lines.io, formatRate, { minTop: 1024 })}
      </ChartCard>
      <ChartCard
        id="net"
        title="Bandwidth"
        now={now?.net ? `${formatRate(now.net.rxBps)} in, ${formatRate(now.net.txBps)} out` : '–'}
        note="over physical network cards"
      >
        {chart('net', 'Bytes received and sent per second', lines.net, formatRate, { minTop: 1024 })}
      </ChartCard>
      <ChartCard
        id="load"
        title="Load"
        now={now?.load ? now.load.map(formatLoad).join(' · ') : '–'}
        note="1, 5 and 15 minute averages"
      >
        {chart('load', 'Load average over 1, 5 and 15 minutes', lines.load, formatLoad, {
          minTop: cores ?? 1,
        })}
      </ChartCard>
      {s.temperature.length > 0 ? (
        <ChartCard
          id="temperature"
          title="Temperature"
          now={
            now?.temperatures.length
              ? formatCelsius(Math.max(...now.temperatures.map((t) => t.celsius)))
              : '–'
          }
          note={`the hottest sensor; alert ${thresholdText(alerts.temperature, '°C')}`}
        >
          {chart('temperature', 'Hottest sensor', lines.temperature, formatCelsius, { minTop: 50 })}
        </ChartCard>
      ) : null}
    </div>
  );
}

/** The fullest filesystem not ignored, percent; null without one. */
function fullestDisk(now: HostNow | null): number | null {
  const counted = now?.disks.filter((d) => !d.ignored) ?? [];
  return counted.length ? Math.max(...counted.map((d) => d.percent)) : null;
}

function ChartCard({
  id,
  title,
  now,
  note,
  wide = false,
  children,
}: {
  id: string;
  title: string;
  now: string;
  note: string;
  wide?: boolean;
  children: ReactNode;
}) {
  return (
    <figure
      className={wide ? 'host-chart wide' : 'host-chart'}
      data-chart={id}
      aria-labelledby={`chart-${id}`}
    >
      <figcaption>
        <h3 id={`chart-${id}`}>{title}</h3>
        <span className="now" data-testid={`now-${id}`}>
          {now}
        </span>
        <span className="muted small">{note}</span>
      </figcaption>
      {children}
    </figure>
  );
}

/** One chart of the panel's TimeChart, or a word when the range has no value. */
export function Chart(props: {
  x: number[];
  stepMs: number;
  lines: ChartLine[];
  format: (v: number) => string;
  label: string;
  top?: number;
  minTop?: number;
  momentAt?: number;
  momentLabel?: string;
}) {
  const empty = props.lines.every((l) => l.values.every((v) => v === null));
  return (
    <div className="chart compact">
      {empty ? (
        <p className="empty">No samples in this range.</p>
      ) : (
        <Suspense fallback={<Loading label="Loading chart…" />}>
          <TimeChart {...props} height={180} />
        </Suspense>
      )}
    </div>
  );
}

/** The filesystems of the latest sample with how full each is; ignored ones neither chart nor alert. */
function Filesystems({ now }: { now: HostNow | null }) {
  if (!now || now.disks.length === 0) return null;
  const disks = [...now.disks].sort((a, b) => b.percent - a.percent);
  return (
    <table className="filesystems" data-testid="filesystems">
      <caption className="sr-only">Filesystems now</caption>
      <thead>
        <tr>
          <th>Mount</th>
          <th>Device</th>
          <th className="num">Used</th>
          <th className="num">Full</th>
        </tr>
      </thead>
      <tbody>
        {disks.map((d) => (
          <tr key={d.mount} data-mount={d.mount} data-ignored={d.ignored || undefined}>
            <td className="mono">
              {d.mount} {d.ignored ? <span className="badge">ignored</span> : null}
            </td>
            <td className="mono small muted">
              {d.device} · {d.fstype}
            </td>
            <td className="num small">
              {formatBytes(d.used)} of {formatBytes(d.size)}
            </td>
            <td className="num">{formatPercent(d.percent)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
