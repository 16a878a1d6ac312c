import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Series } from '../../../protocol/reads.ts';
import { formatLatency, formatTime } from '../lib/format.ts';
import type { Marker } from '../lib/markers.ts';

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

/** Marks on the plot: a line per deploy or change, its words in the title (the list beside the chart says them too). */
function placeMarkers(u: uPlot, layer: HTMLElement, markers: Marker[]): void {
  const [min, max] = [u.scales.x!.min!, u.scales.x!.max!];
  layer.replaceChildren(
    ...markers
      .filter((m) => m.ts >= min && m.ts <= max)
      .map((m) => {
        const mark = document.createElement('span');
        mark.className = `chart-marker chart-marker-${m.kind}`;
        mark.dataset.kind = m.kind;
        mark.style.left = `${u.valToPos(m.ts, 'x')}px`;
        mark.title = `${formatTime(m.ts)} · ${m.label}${m.by ? ` · by ${m.by}` : ''}`;
        return mark;
      }),
  );
}

const none: Marker[] = [];

/**
 * p50 and p95 response time per step, in the browser's time zone, with a mark per deploy and change.
 * Loaded lazily with uPlot.
 */
export default function LatencyChart({ series, markers = none }: { series: Series; markers?: Marker[] }) {
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    // Lines need neighbours: with few runs in the range, draw each step as a dot too.
    const sparse = series.p50.filter((v) => v !== null).length < 40;
    const layer = document.createElement('div');
    layer.className = 'chart-markers';
    // The whole range, up to the end of its last step: a deploy after the last run still shows.
    const xRange: [number, number] = [series.x[0] ?? 0, (series.x.at(-1) ?? 0) + series.stepMs];
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
          height: 240,
          ms: 1,
          cursor: { drag: { x: false, y: false } },
          legend: { live: true },
          scales: {
            x: { range: () => xRange },
            y: { range: (_u, _min, max) => [0, Math.max(10, max * 1.1)] },
          },
          hooks: { draw: [(u) => placeMarkers(u, layer, markers)] },
          axes: [axis, { ...axis, size: 64, values: (_u, ticks) => ticks.map((t) => formatLatency(t)) }],
          series: [
            {},
            {
              label: 'p50',
              stroke: css('--accent'),
              width: 2,
              spanGaps: false,
              points: { show: sparse, size: 5 },
              value: (_u, v) => formatLatency(v),
            },
            {
              label: 'p95',
              stroke: css('--degraded'),
              width: 1.5,
              dash: [6, 4],
              spanGaps: false,
              points: { show: sparse, size: 4 },
              value: (_u, v) => formatLatency(v),
            },
          ],
        },
        [series.x, series.p50, series.p95] as uPlot.AlignedData,
        el,
      );
      plot.over.append(layer);
      placeMarkers(plot, layer, markers);
    };
    build();
    const resize = new ResizeObserver(() => plot?.setSize({ width: el.clientWidth, height: 240 }));
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
    };
  }, [series, markers]);

  return (
    <div
      ref={box}
      role="img"
      aria-label={`Response time chart, p50 and p95${markers.length ? `, ${markers.length} deploys and changes marked` : ''}`}
    />
  );
}
