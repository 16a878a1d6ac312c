import type { Beat } from '../../../../protocol/reads.ts';
import { statusLabel } from '../../components/Status.tsx';
import { formatLatency, formatTime } from '../../lib/format.ts';

const SLOTS = 90;

/** The newest 90 runs as bars, oldest left; empty slots on the left until 90 runs exist. */
export function Beats({ beats }: { beats: Beat[] }) {
  const empty = Math.max(0, SLOTS - beats.length);
  const down = beats.filter((b) => b.status === 'down').length;
  const first = beats[0];
  return (
    <>
      <div
        className="beats"
        role="img"
        aria-label={`${beats.length} runs, ${down} down. Latest: ${beats.length ? statusLabel(beats[beats.length - 1]!.status) : 'none'}.`}
      >
        {Array.from({ length: empty }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
          <span key={`e${i}`} className="beat beat-empty" />
        ))}
        {beats.map((b) => (
          <span
            key={b.ts}
            className={`beat beat-${b.status}`}
            data-status={b.status}
            title={`${formatTime(b.ts)} · ${statusLabel(b.status)} · ${formatLatency(b.latencyMs)}${b.detail ? ` · ${b.detail}` : ''}`}
          />
        ))}
      </div>
      <div className="beats-legend">
        <span>
          {first
            ? `${beats.length < SLOTS ? `${beats.length} ${beats.length === 1 ? 'run' : 'runs'} since` : 'from'} ${formatTime(first.ts)}`
            : 'no runs yet'}
        </span>
        <span>now</span>
      </div>
    </>
  );
}
