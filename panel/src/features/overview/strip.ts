import type { RunStatus } from '../../../../protocol/reads.ts';
import { formatDuration } from '../../lib/format.ts';

/**
 * A check's strip as one CSS background: a hard-edged band of colour per slot, thin gaps between
 * them. One element per check keeps an overview of thousands of checks light.
 */
const colour: Record<RunStatus | 'none', string> = {
  up: 'var(--up)',
  degraded: 'var(--degraded)',
  down: 'var(--down)',
  none: 'var(--surface-2)',
};

export function stripBackground(slots: (RunStatus | null)[]): string {
  const n = slots.length;
  if (n === 0) return colour.none;
  const stops = slots.map((s, i) => {
    const c = colour[s ?? 'none'];
    return `${c} ${((i / n) * 100).toFixed(3)}% ${(((i + 1) / n) * 100).toFixed(3)}%`;
  });
  const gaps = `repeating-linear-gradient(to right, transparent 0 calc(100% / ${n} - 1px), var(--surface) calc(100% / ${n} - 1px) calc(100% / ${n}))`;
  return `${gaps}, linear-gradient(to right, ${stops.join(', ')})`;
}

/** The strip in words, each slot `stepMs` long: "24 × 1 h: 21 up, 1 down, 2 without runs". */
export function stripText(slots: (RunStatus | null)[], stepMs: number): string {
  const count = { up: 0, degraded: 0, down: 0, none: 0 };
  for (const s of slots) count[s ?? 'none']++;
  const parts = [
    count.up ? `${count.up} up` : '',
    count.degraded ? `${count.degraded} degraded` : '',
    count.down ? `${count.down} down` : '',
    count.none ? `${count.none} without runs` : '',
  ].filter(Boolean);
  return `${slots.length} × ${formatDuration(stepMs)}: ${parts.join(', ')}`;
}

/** The strip as data for tests and tools: "up up down - degraded" (- is a slot without runs). */
export const stripData = (slots: (RunStatus | null)[]) => slots.map((s) => s ?? '-').join(' ');
