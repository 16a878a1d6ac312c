import { type KeyboardEvent, useEffect, useId, useMemo, useRef, useState } from 'react';
import uPlot from 'uplot';
import { DAY } from '../../../protocol/durations.ts';
import 'uplot/dist/uPlot.min.css';
import { axisDay, dayTicks, isUtcDays, pointTime } from '../lib/chart-time.ts';
import { chartKeyStep, chartReading, chartSummary } from '../lib/chart-words.ts';
import { formatTime } from '../lib/format.ts';
import type { Marker } from '../lib/markers.ts';

/** One line of a chart: its values per step (null where nothing was measured) and a theme colour variable. */
export type ChartLine = {
  label: string;
  values: readonly (number | null)[];
  /** A colour variable of styles/theme.css, such as `--accent`. */
  color: string;
  width?: number;
  dash?: boolean;
};

/** A theme colour as the browser resolves it now: the variables hold light-dark() pairs, not colours. */
function css(name: string): string {
  const probe = document.createElement('span');
  probe.style.display = 'none';
  probe.style.color = `var(${name})`;
  document.body.append(probe);
  const color = getComputedStyle(probe).color;
  probe.remove();
  return color;
}

/**
 * Marks on the plot: a line per deploy or change, its words in the title (the list beside the chart says
 * them too), the moment and the span, if any.
 */
function placeMarkers(
  u: uPlot,
  layer: HTMLElement,
  markers: Marker[],
  moment: { ts: number; label: string } | null,
  shaded: ChartSpan | null,
): void {
  const [min, max] = [u.scales.x!.min!, u.scales.x!.max!];
  const mark = (ts: number, kind: string, title: string) => {
    const span = document.createElement('span');
    span.className = `chart-marker chart-marker-${kind}`;
    span.dataset.kind = kind;
    span.style.left = `${u.valToPos(ts, 'x')}px`;
    span.title = title;
    return span;
  };
  const band = (from: number, to: number, title: string) => {
    const div = document.createElement('span');
    div.className = 'chart-span';
    const left = u.valToPos(Math.max(from, min), 'x');
    div.style.left = `${left}px`;
    div.style.width = `${Math.max(2, u.valToPos(Math.min(to, max), 'x') - left)}px`;
    div.title = title;
    return div;
  };
  layer.replaceChildren(
    ...(shaded && shaded.to >= min && shaded.from <= max
      ? [
          band(
            shaded.from,
            shaded.to,
            `${formatTime(shaded.from)} to ${formatTime(shaded.to)} · ${shaded.label}`,
          ),
        ]
      : []),
    ...markers
      .filter((m) => m.ts >= min && m.ts <= max)
      .map((m) => mark(m.ts, m.kind, `${formatTime(m.ts)} · ${m.label}${m.by ? ` · by ${m.by}` : ''}`)),
    ...(moment && moment.ts >= min && moment.ts <= max
      ? [mark(moment.ts, 'moment', `${formatTime(moment.ts)} · ${moment.label}`)]
      : []),
  );
}

const none: Marker[] = [];

/**
 * The time axis of a day series: ticks at UTC midnights, whole days apart, read as UTC dates. uPlot's own
 * ticks fall at local midnights and hours, which are not the points' days.
 */
const dayAxis: Pick<uPlot.Axis, 'incrs' | 'splits' | 'values'> = {
  incrs: [1, 2, 7, 14, 28, 56, 91, 182].map((d) => d * DAY),
  splits: (_u, _i, min, max, incr) => dayTicks(min, max, incr),
  values: (_u, ticks) => ticks.map((t) => axisDay(t)),
};

/** A stretch of time shaded on the plot (an incident from its start to its end), with its words. */
export type ChartSpan = { from: number; to: number; label: string };

export type TimeChartProps = {
  x: readonly number[];
  stepMs: number;
  lines: readonly ChartLine[];
  /** Words of a value, for the axis and the legend (`formatLatency`, a percent, bytes per second). */
  format: (value: number) => string;
  /** The top of the value axis: fixed (100 for percent), or at least `minTop` with room above the highest value. */
  top?: number;
  minTop?: number;
  markers?: Marker[];
  /** A moment marked on the plot, with its words in the mark's title (an incident's start). */
  momentAt?: number | null;
  momentLabel?: string;
  /** A stretch of time shaded on the plot, behind the lines. */
  span?: ChartSpan | null;
  height?: number;
  /** What the chart shows, read by screen readers. */
  label: string;
};

/**
 * Values per step over time, one line each, with a mark per deploy and change and an optional moment.
 * A step of a day is labelled as the UTC date it sums, finer steps in the browser's time zone. The one
 * chart of the panel: response times, host and container series.
 * Loaded lazily with uPlot (import it through `lazy`, or through a component that is).
 * Without a mouse: the chart takes the focus, describes its range in words (each line's lowest, average
 * and highest), and arrow keys, Page Up/Down, Home and End move its cursor, whose values are read out.
 */
export default function TimeChart({
  x,
  stepMs,
  lines,
  format,
  top,
  minTop = 1,
  markers = none,
  momentAt = null,
  momentLabel = '',
  span = null,
  height = 240,
  label,
}: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plotRef = useRef<uPlot | null>(null);
  const summaryId = useId();
  const words = useMemo(() => ({ x, stepMs, lines, format }), [x, stepMs, lines, format]);
  const summary = useMemo(() => chartSummary(words), [words]);
  // The step the keyboard put the cursor on, and its values in words for the live region.
  const [step, setStep] = useState<number | null>(null);
  const reading = step === null || step >= x.length ? '' : chartReading(words, step);

  const onKeyDown = (e: KeyboardEvent) => {
    const next = chartKeyStep(e.key, step, x.length);
    const plot = plotRef.current;
    if (next === null || !plot) return;
    e.preventDefault();
    setStep(next);
    // The cursor where the mouse would put it: the legend shows the step's values.
    plot.setCursor({ left: plot.valToPos(x[next]!, 'x'), top: plot.over.clientHeight / 2 });
  };

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    // Lines need neighbours: with few values in the range, draw each step as a dot too.
    const sparse = (lines[0]?.values.filter((v) => v !== null).length ?? 0) < 40;
    const moment = momentAt === null ? null : { ts: momentAt, label: momentLabel };
    const layer = document.createElement('div');
    layer.className = 'chart-markers';
    // The whole range, up to the end of its last step: a deploy after the last value still shows.
    const xRange: [number, number] = [x[0] ?? 0, (x.at(-1) ?? 0) + stepMs];
    const build = () => {
      plot?.destroy();
      const axis = {
        stroke: css('--muted'),
        grid: { stroke: css('--border'), width: 1 },
        ticks: { show: false },
      };
      plot = new uPlot(
        {
          width: el.clientWidth,
          height,
          ms: 1,
          cursor: { drag: { x: false, y: false } },
          legend: { live: true },
          scales: {
            x: { range: () => xRange },
            y: { range: (_u, _min, max) => [0, top ?? Math.max(minTop, max * 1.1)] },
          },
          hooks: { draw: [(u) => placeMarkers(u, layer, markers, moment, span)] },
          axes: [
            isUtcDays(stepMs) ? { ...axis, ...dayAxis } : axis,
            { ...axis, size: 64, values: (_u, ticks) => ticks.map((t) => format(t)) },
          ],
          series: [
            {
              label: isUtcDays(stepMs) ? 'UTC day' : 'Time',
              value: (_u: uPlot, v: number | null) => (v === null ? '–' : pointTime(v, stepMs)),
            },
            ...lines.map((line) => ({
              label: line.label,
              stroke: css(line.color),
              width: line.width ?? 1.5,
              ...(line.dash ? { dash: [6, 4] } : {}),
              spanGaps: false,
              points: { show: sparse, size: (line.width ?? 1.5) >= 2 ? 5 : 4 },
              value: (_u: uPlot, v: number | null) => (v === null ? '–' : format(v)),
            })),
          ],
        },
        [x, ...lines.map((l) => l.values)] as uPlot.AlignedData,
        el,
      );
      plot.over.append(layer);
      placeMarkers(plot, layer, markers, moment, span);
      plotRef.current = plot;
    };
    build();
    const resize = new ResizeObserver(() => plot?.setSize({ width: el.clientWidth, height }));
    resize.observe(el);
    // Colours come from CSS variables: rebuild when the theme changes.
    const themeObserver = new MutationObserver(build);
    themeObserver.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const media = window.matchMedia('(prefers-color-scheme: dark)');
    media.addEventListener('change', build);
    return () => {
      resize.disconnect();
      themeObserver.disconnect();
      media.removeEventListener('change', build);
      plot?.destroy();
      plotRef.current = null;
    };
  }, [x, stepMs, lines, format, top, minTop, markers, momentAt, momentLabel, span, height]);

  return (
    <div className="time-chart">
      <div
        ref={box}
        role="img"
        aria-label={label}
        aria-describedby={summaryId}
        // biome-ignore lint/a11y/noNoninteractiveTabindex: the chart is operated with the keyboard.
        tabIndex={0}
        onKeyDown={onKeyDown}
        onBlur={() => setStep(null)}
      />
      <p id={summaryId} className="sr-only">
        {summary} Arrow keys read the values step by step; Home and End go to the first and last.
      </p>
      <p className="sr-only" aria-live="polite" data-testid="chart-reading">
        {reading}
      </p>
    </div>
  );
}
