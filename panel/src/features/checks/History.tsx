import { useState } from 'react';
import type { HistoryItem } from '../../../../protocol/reads.ts';
import { ErrorBox, Loading } from '../../components/Feedback.tsx';
import { StatusBadge } from '../../components/Status.tsx';
import { Table } from '../../components/Table.tsx';
import { formatLatency, formatWhen, localTimes } from '../../lib/format.ts';
import { foldHistory } from './fold.ts';
import { useCheckHistory } from './queries.ts';

/** Failures and changes, newest first; repeated failures fold into one row that opens to its runs. */
export function History({ id }: { id: string }) {
  const history = useCheckHistory(id);
  // Folds are known by their newest run, which older pages do not change.
  const [open, setOpen] = useState<ReadonlySet<number>>(new Set());
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
  const toggle = (ts: number) =>
    setOpen((was) => {
      const next = new Set(was);
      if (!next.delete(ts)) next.add(ts);
      return next;
    });
  return (
    <section className="card">
      <div className="card-head">
        <h2>History</h2>
        <span className="muted small">failures and changes</span>
      </div>
      {history.isPending ? (
        <Loading />
      ) : history.isError ? (
        <div className="card-body">
          <ErrorBox error={history.error} />
        </div>
      ) : items.length === 0 ? (
        <p className="empty">No failures or changes yet.</p>
      ) : (
        <Table
          testId="history"
          head={
            <>
              <th>When</th>
              <th>Event</th>
              <th>Detail</th>
              <th className="num">Latency</th>
            </>
          }
        >
          {foldHistory(items).flatMap((row, i) => {
            if (row.kind === 'item')
              // biome-ignore lint/suspicious/noArrayIndexKey: items of one timestamp have no other identity
              return [<ItemRow key={`${row.item.ts}-${row.item.kind}-${i}`} item={row.item} />];
            const newest = row.runs[0]!;
            const oldest = row.runs.at(-1)!;
            const expanded = open.has(newest.ts);
            return [
              <tr key={`fold-${newest.ts}`} className="fold" data-fold={row.runs.length}>
                <td className="small when">
                  {formatWhen(oldest.ts)}–{formatWhen(newest.ts)}
                </td>
                <td>
                  {newest.status ? <StatusBadge status={newest.status} /> : null}{' '}
                  <button
                    type="button"
                    className="link-button"
                    aria-expanded={expanded}
                    onClick={() => toggle(newest.ts)}
                  >
                    {row.runs.length} failed runs
                  </button>
                </td>
                <td className="small">{localTimes(newest.detail)}</td>
                <td className="num small">–</td>
              </tr>,
              ...(expanded
                ? row.runs.map((run, j) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: runs of one timestamp have no other identity
                    <ItemRow key={`${newest.ts}-${run.ts}-${j}`} item={run} folded />
                  ))
                : []),
            ];
          })}
        </Table>
      )}
      {history.hasNextPage ? (
        <div className="card-body" style={{ borderTop: '1px solid var(--border)' }}>
          <button
            type="button"
            onClick={() => void history.fetchNextPage()}
            disabled={history.isFetchingNextPage}
          >
            {history.isFetchingNextPage ? 'Loading…' : 'Show older'}
          </button>
        </div>
      ) : null}
    </section>
  );
}

/** One failure or change; `folded` marks a run shown inside an opened fold. */
function ItemRow({ item, folded = false }: { item: HistoryItem; folded?: boolean }) {
  return (
    <tr className={folded ? 'folded' : undefined}>
      <td className="small when">{formatWhen(item.ts)}</td>
      <td>
        {item.kind === 'failure' ? (
          <>
            {item.status ? <StatusBadge status={item.status} /> : null}{' '}
            <span className="muted small">failed run</span>
          </>
        ) : item.status && item.title.toLowerCase() === item.status ? (
          <>
            <span>became</span> <StatusBadge status={item.status} />
          </>
        ) : (
          <>
            {item.status ? <StatusBadge status={item.status} /> : null} <span>{item.title}</span>
          </>
        )}
      </td>
      <td className="small">{localTimes(item.detail)}</td>
      <td className="num small">{formatLatency(item.latencyMs)}</td>
    </tr>
  );
}
