import type { HostRead } from '../../../../protocol/hosts.ts';
import { StatusBadge } from '../../components/Status.tsx';
import { Table } from '../../components/Table.tsx';
import { Link } from '../../lib/router.tsx';
import { conflictText } from './describe.ts';

/**
 * The checks that run from this host: those of mon.toml and the panel that name it in `from`, and the
 * command checks of its checks.toml; then the checks.toml checks not taken, and the lines the agent
 * could not use.
 */
export function HostChecks({ host }: { host: HostRead }) {
  const checks = [...host.checks].sort((a, b) => a.name.localeCompare(b.name));
  return (
    <section className="card" aria-labelledby="host-checks-title" data-testid="host-checks">
      <div className="card-head">
        <h2 id="host-checks-title">Checks from this host</h2>
        <span className="muted small">run by its agent</span>
      </div>
      {checks.length === 0 ? (
        <p className="empty">
          No check runs from {host.name}. A check runs here when its <code>from</code> names this host, or
          when the host's checks.toml declares it.
        </p>
      ) : (
        <Table
          head={
            <>
              <th>Status</th>
              <th>Check</th>
              <th>Kind</th>
              <th>Defined in</th>
            </>
          }
        >
          {checks.map((c) => (
            <tr key={c.id} data-check={c.name}>
              <td>
                <StatusBadge status={c.status} />
              </td>
              <td className="name-cell">
                <Link href={`/checks/${c.id}`}>{c.name}</Link>
              </td>
              <td>
                <span className="badge">{c.kind}</span>
              </td>
              <td className="small">{c.hostDefined ? "the host's checks.toml" : 'mon.toml or the panel'}</td>
            </tr>
          ))}
        </Table>
      )}
      {host.checkConflicts.length > 0 || host.checkProblems.length > 0 ? (
        <div className="card-body" style={{ borderTop: '1px solid var(--border)' }}>
          {host.checkConflicts.length > 0 ? (
            <>
              <h3>Checks of checks.toml not used</h3>
              <ul className="plain-list" data-testid="check-conflicts">
                {host.checkConflicts.map((c) => (
                  <li key={c.name}>{conflictText(c)}</li>
                ))}
              </ul>
            </>
          ) : null}
          {host.checkProblems.length > 0 ? (
            <>
              <h3>Problems in checks.toml</h3>
              <p className="muted small">
                The agent could not use these lines; it reads the file again when it restarts.
              </p>
              <ul className="plain-list mono small" data-testid="check-problems">
                {host.checkProblems.map((p) => (
                  <li key={p}>{p}</li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
