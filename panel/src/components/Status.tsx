import type { CheckStatus } from '../../../protocol/reads.ts';

const look: Record<CheckStatus, { shape: string; label: string }> = {
  up: { shape: '●', label: 'Up' },
  down: { shape: '▼', label: 'Down' },
  degraded: { shape: '◆', label: 'Degraded' },
  unknown: { shape: '○', label: 'Unknown' },
};
const recoveringLook = { shape: '▲', label: 'Recovering' };

/**
 * A status as colour, shape and word. `recovering`: a down check whose runs pass again but that does
 * not count as up yet; `data-status` keeps the status the API gives.
 */
export function StatusBadge({ status, recovering = false }: { status: CheckStatus; recovering?: boolean }) {
  const { shape, label } = recovering ? recoveringLook : (look[status] ?? look.unknown);
  return (
    <span
      className={`status status-${recovering ? 'recovering' : status}`}
      data-status={status}
      data-recovering={recovering || undefined}
    >
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
