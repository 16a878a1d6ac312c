import { formatWhen } from '../lib/format.ts';
import type { Marker } from '../lib/markers.ts';
import { ExternalLink } from './ExternalLink.tsx';

const kindLabel: Record<Marker['kind'], string> = { deploy: 'deploy', change: 'change', push: 'push' };

/** Deploys and changes in words, in the order given (a chart's marks, the overview's list); nothing when none. */
export function MarkerList({ markers }: { markers: Marker[] }) {
  if (markers.length === 0) return null;
  return (
    <ul className="markers" aria-label="Deploys and changes in this range">
      {markers.map((m) => {
        return (
          <li key={`${m.kind}${m.ts}${m.label}`} data-kind={m.kind}>
            <time dateTime={new Date(m.ts).toISOString()}>{formatWhen(m.ts)}</time>
            <span className="badge">{kindLabel[m.kind]}</span>
            <ExternalLink url={m.url}>{m.label}</ExternalLink>
            {m.by ? <span className="muted">by {m.by}</span> : null}
          </li>
        );
      })}
    </ul>
  );
}
