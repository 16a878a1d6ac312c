import { useMemo, useState } from 'react';
import type { ChangeRow, DeployRow } from '../../../../protocol/deploys.ts';
import { MarkerList } from '../../components/Markers.tsx';
import { markersOf } from '../../lib/markers.ts';

const SHOWN = 15;

/** Deploys and changes of the range, newest first; the first 15 until asked for all. */
export function RecentChanges({ deploys, changes }: { deploys: DeployRow[]; changes: ChangeRow[] }) {
  const [all, setAll] = useState(false);
  const markers = useMemo(() => markersOf(deploys, changes).reverse(), [deploys, changes]);
  if (markers.length === 0) return null;
  return (
    <section className="card" aria-labelledby="recent-changes" data-testid="recent-changes">
      <div className="card-head">
        <h2 id="recent-changes">Deploys and changes</h2>
        <span className="muted small">
          {deploys.length} {deploys.length === 1 ? 'deploy' : 'deploys'}, {changes.length}{' '}
          {changes.length === 1 ? 'change' : 'changes'}
        </span>
      </div>
      <div className="card-body">
        <MarkerList markers={all ? markers : markers.slice(0, SHOWN)} />
        {markers.length > SHOWN ? (
          <button type="button" className="link-button" onClick={() => setAll(!all)} aria-expanded={all}>
            {all ? 'Show fewer' : `Show all ${markers.length}`}
          </button>
        ) : null}
      </div>
    </section>
  );
}
