import { ErrorBox, Loading } from '../../components/Feedback.tsx';
import { StatusBadge } from '../../components/Status.tsx';
import { Table } from '../../components/Table.tsx';
import { formatLatency, formatWhen } from '../../lib/format.ts';
import { useCheckHistory } from './queries.ts';

/** Failures and changes, newest first, 20 per page. */
export function History({ id }: { id: string }) {
  const history = useCheckHistory(id);
  const items = history.data?.pages.flatMap((p) => p.items) ?? [];
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
          {items.map((item, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items of one timestamp have no other identity
            <tr key={`${item.ts}-${item.kind}-${i}`}>
              <td className="small" style={{ whiteSpace: 'nowrap' }}>
                {formatWhen(item.ts)}
              </td>
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
              <td className="small">{item.detail}</td>
              <td className="num small">{formatLatency(item.latencyMs)}</td>
            </tr>
          ))}
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
