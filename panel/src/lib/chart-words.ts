import { chartTimes, isUtcDays, pointTime } from './chart-time.ts';

/**
 * What a chart's words need of it: times per step, the step (a day's are UTC dates, finer ones local
 * times) and lines of values (null where nothing was measured).
 */
export type ChartData = {
  x: readonly number[];
  stepMs: number;
  lines: readonly { label: string; values: readonly (number | null)[] }[];
  format: (value: number) => string;
};

/**
 * A chart's range in words, for screen readers: per line its lowest, average and highest value and when
 * the highest was, so that the numbers a chart shows are there without a mouse.
 */
export function chartSummary({ x, stepMs, lines, format }: ChartData): string {
  if (x.length === 0) return 'Nothing measured in this range.';
  const when = (ms: number) => pointTime(ms, stepMs);
  const at = isUtcDays(stepMs) ? 'on' : 'at';
  const parts = [`From ${when(x[0]!)} to ${when(x.at(-1)!)}; ${chartTimes(stepMs)}.`];
  for (const line of lines) {
    let [low, high, sum, count, highAt] = [Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, 0, 0];
    line.values.forEach((v, i) => {
      if (v === null) return;
      low = Math.min(low, v);
      if (v > high) [high, highAt] = [v, x[i]!];
      sum += v;
      count++;
    });
    parts.push(
      count === 0
        ? `${line.label}: nothing measured.`
        : `${line.label}: lowest ${format(low)}, average ${format(sum / count)}, highest ${format(high)} ${at} ${when(highAt)}.`,
    );
  }
  return parts.join(' ');
}

/**
 * The values of one step, as the legend shows them when the cursor is there: "Jan 1, 2026, 10:05 AM: CPU
 * 12%, max 20%", or of a day "Tue, Mar 31, 2026: visitors 26".
 */
export function chartReading({ x, stepMs, lines, format }: ChartData, index: number): string {
  const values = lines.map((l) => {
    const v = l.values[index] ?? null;
    return `${l.label} ${v === null ? 'not measured' : format(v)}`;
  });
  return `${pointTime(x[index]!, stepMs)}: ${values.join(', ')}`;
}

/** The step a key moves the chart's cursor to from `index` (null: the key is not the chart's). */
export function chartKeyStep(key: string, index: number | null, length: number): number | null {
  const last = length - 1;
  const at = index ?? last;
  switch (key) {
    case 'ArrowLeft':
      return index === null ? last : Math.max(0, at - 1);
    case 'ArrowRight':
      return index === null ? last : Math.min(last, at + 1);
    case 'PageUp':
      return Math.max(0, at - 10);
    case 'PageDown':
      return Math.min(last, at + 10);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return null;
  }
}
