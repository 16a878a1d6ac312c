import type { Beat, Gap } from '../../../../protocol/reads.ts';
import { statusLabel } from '../../components/Status.tsx';
import { formatLatency, formatTime, localTimes } from '../../lib/format.ts';

const SLOTS = 90;

type Bar = { at: number; beat: Beat } | { at: number; gap: Gap };

/**
 * The newest 90 runs as bars, oldest left; empty slots on the left until 90 runs exist. A time when
 * mon was not running is a bar of its own between the runs around it: no data, never up.
 */
export function Beats({ beats, gaps }: { beats: Beat[]; gaps: Gap[] }) {
  const bars: Bar[] = [
    ...beats.map((beat) => ({ at: beat.ts, beat })),
    ...gaps.map((gap) => ({ at: gap.from, gap })),
  ]
    .sort((a, b) => a.at - b.at)
    .slice(-SLOTS);
  const empty = Math.max(0, SLOTS - bars.length);
  const down = beats.filter((b) => b.status === 'down').length;
  const first = beats[0];
  const latest = beats.at(-1);
  return (
    <>
      <div
        className="beats"
        role="img"
        aria-label={`${beats.length} runs, ${down} down${gaps.length ? `, ${gaps.length} without data` : ''}. Latest: ${latest ? statusLabel(latest.status) : 'none'}.`}
      >
        {Array.from({ length: empty }, (_, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have no identity
          <span key={`e${i}`} className="beat beat-empty" />
        ))}
        {bars.map((bar) =>
          'gap' in bar ? (
            <span
              key={`g${bar.at}`}
              className="beat beat-nodata"
              data-status="nodata"
              title={`No data: mon was not running from ${formatTime(bar.gap.from)} to ${formatTime(bar.gap.to)}`}
            />
          ) : (
            <span
              key={bar.at}
              className={`beat beat-${bar.beat.status}`}
              data-status={bar.beat.status}
              title={`${formatTime(bar.at)} · ${statusLabel(bar.beat.status)} · ${formatLatency(bar.beat.latencyMs)}${bar.beat.detail ? ` · ${localTimes(bar.beat.detail)}` : ''}`}
            />
          ),
        )}
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
