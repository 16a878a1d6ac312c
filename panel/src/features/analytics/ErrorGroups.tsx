import type { ErrorGroupRead } from '../../../../protocol/analytics.ts';
import { Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { formatDuration, formatRelative, formatTime } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { errorWhere, formatCount } from './describe.ts';

/**
 * The JavaScript errors the site's visitors hit in the range, grouped by kind, message and where they
 * were thrown; a group first seen in the range is new, and one first seen within an hour after a deploy
 * of the site's service names it.
 */
export function ErrorGroups({ errors, service }: { errors: ErrorGroupRead[]; service: string | null }) {
  return (
    <section className="card" aria-labelledby="errors-title" data-testid="errors">
      <div className="card-head">
        <h2 id="errors-title">JavaScript errors</h2>
        <span className="muted small">
          most occurrences first; times are when mon last and first saw each
        </span>
      </div>
      {errors.length === 0 ? (
        <p className="empty">No JavaScript error in this range.</p>
      ) : (
        <Table
          testId="error-groups"
          head={
            <>
              <th>Error</th>
              <th className="num">Count</th>
              <th>Last seen</th>
              <th>First seen</th>
              <th>After deploy</th>
            </>
          }
        >
          {errors.map((g) => (
            <tr key={g.id} data-group={g.id}>
              <td className="error-cell">
                <div>
                  <strong>{g.type}</strong>
                  {g.isNew ? <span className="badge badge-new">new</span> : null}
                </div>
                <div className="error-message">{g.message}</div>
                <div className="mono small muted">{errorWhere(g)}</div>
              </td>
              <td className="num">{formatCount(g.count)}</td>
              <td className="when">
                <time dateTime={new Date(g.lastSeen).toISOString()} title={formatTime(g.lastSeen)}>
                  {formatRelative(g.lastSeen)}
                </time>
              </td>
              <td className="when">
                <time dateTime={new Date(g.firstSeen).toISOString()} title={formatTime(g.firstSeen)}>
                  {formatRelative(g.firstSeen)}
                </time>
              </td>
              <td className="small">
                {g.deploy ? (
                  <>
                    {service ? (
                      <Link href={`/services/${enc(service)}`} title={`Deployed ${formatTime(g.deploy.ts)}`}>
                        {g.deploy.version}
                      </Link>
                    ) : (
                      <span className="mono">{g.deploy.version}</span>
                    )}
                    <div className="muted">{formatDuration(g.firstSeen - g.deploy.ts)} before first seen</div>
                  </>
                ) : (
                  <span className="muted">–</span>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
