import type { CheckStatus } from '../../../protocol/reads.ts';

const look: Record<CheckStatus, { shape: string; label: string }> = {
  up: { shape: '●', label: 'Up' },
  down: { shape: '▼', label: 'Down' },
  degraded: { shape: '◆', label: 'Degraded' },
  unknown: { shape: '○', label: 'Unknown' },
};

/** A status as colour, shape and word. */
export function StatusBadge({ status }: { status: CheckStatus }) {
  const { shape, label } = look[status] ?? look.unknown;
  return (
    <span className={`status status-${status}`} data-status={status}>
      <span className="shape" aria-hidden="true">
        {shape}
      </span>
      {label}
    </span>
  );
}

export const statusLabel = (status: CheckStatus) => (look[status] ?? look.unknown).label;

/** Worst first: down, degraded, unknown, up. */
export const severity: Record<CheckStatus, number> = { down: 0, degraded: 1, unknown: 2, up: 3 };
