import type { TimelineRow } from '../../../../protocol/incidents.ts';
import { ExternalLink } from '../../components/ExternalLink.tsx';
import { Table } from '../../components/Table.tsx';
import { formatWhen } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';

/** What happened around an incident, oldest first: its own changes, deploys and changes, notifications sent. */
export function Timeline({ rows }: { rows: TimelineRow[] }) {
  if (rows.length === 0) return <p className="empty">Nothing recorded yet.</p>;
  return (
    <Table
      testId="timeline"
      head={
        <>
          <th>When</th>
          <th>What</th>
          <th>Where</th>
        </>
      }
    >
      {rows.map((r, i) => {
        return (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no id; the list is read whole
          <tr key={i} data-kind={r.kind}>
            <td className="when">{formatWhen(r.ts)}</td>
            <td>
              <span className="badge">{r.kind}</span> <ExternalLink url={r.url}>{r.title}</ExternalLink>
              {r.by ? <span className="muted"> by {r.by}</span> : null}
              {r.detail ? <div className="muted small">{r.detail}</div> : null}
            </td>
            <td className="muted">
              {[r.service, r.host].filter((w) => w !== null).join(' · ')}
              {r.check ? (
                <>
                  {' '}
                  <Link href={`/checks/${r.check}`}>check</Link>
                </>
              ) : null}
            </td>
          </tr>
        );
      })}
    </Table>
  );
}
