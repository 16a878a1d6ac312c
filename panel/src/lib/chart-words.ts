import { formatTime } from './format.ts';

/** What a chart's words need of it: times per step and lines of values (null where nothing was measured). */
export type ChartData = {
  x: readonly number[];
  lines: readonly { label: string; values: readonly (number | null)[] }[];
  format: (value: number) => string;
};

/**
 * A chart's range in words, for screen readers: per line its lowest, average and highest value and when
 * the highest was, so that the numbers a chart shows are there without a mouse.
 */
export function chartSummary({ x, lines, format }: ChartData): string {
  if (x.length === 0) return 'Nothing measured in this range.';
  const parts = [`From ${formatTime(x[0]!)} to ${formatTime(x.at(-1)!)}.`];
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
        : `${line.label}: lowest ${format(low)}, average ${format(sum / count)}, highest ${format(high)} at ${formatTime(highAt)}.`,
    );
  }
  return parts.join(' ');
}

/** The values of one step, as the legend shows them when the cursor is there: "10:05: CPU 12%, max 20%". */
export function chartReading({ x, lines, format }: ChartData, index: number): string {
  const values = lines.map((l) => {
    const v = l.values[index] ?? null;
    return `${l.label} ${v === null ? 'not measured' : format(v)}`;
  });
  return `${formatTime(x[index]!)}: ${values.join(', ')}`;
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
