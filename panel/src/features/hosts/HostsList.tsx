import { useEffect, useState } from 'react';
import type { AddedHost, AgentInfo } from '../../../../protocol/hosts.ts';
import { Loading, ReadError } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { FormCard } from '../../components/FormCard.tsx';
import { Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { fieldId, Invalid, useForm } from '../../lib/form.ts';
import { formatPercent, formatWhen } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { AgentState } from './AgentState.tsx';
import { RESTART_COMMANDS, updateNote } from './describe.ts';
import { Installed } from './Installed.tsx';
import { addHost, useHosts, useRefreshHosts } from './queries.ts';
import './hosts.css';

/**
 * The hosts: each with its agent's state, CPU, memory and disk now, alerts, discovered items and
 * services; the figures come first, so that a phone shows them without a swipe.
 */
export default function HostsList() {
  const hosts = useHosts();
  const canWrite = useCanWrite();
  const [added, setAdded] = useState<AddedHost | null>(null);
  useEffect(() => {
    document.title = 'Hosts · mon';
  }, []);

  if (hosts.isPending) return <Loading />;
  if (hosts.isError) return <ReadError error={hosts.error} />;
  const list = hosts.data.hosts;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Hosts</h1>
          <p className="sub">
            Machines that run the mon agent: it sends CPU, memory, disks, network, containers and services
            every 15 seconds, and runs the checks that name the host in <code>from</code>.
          </p>
        </div>
      </div>
      {added ? (
        <Installed added={added} onDone={() => setAdded(null)} returnTo={fieldId('name', 'host')} />
      ) : null}
      <section className="card">
        {list.length === 0 ? (
          <div className="empty" data-testid="no-hosts">
            <p>
              <strong>No hosts yet.</strong>
            </p>
            <p>
              {canWrite ? 'Add a host below: ' : 'An administrator adds a host here: '}
              mon answers with a token and an install command for Docker or systemd. The agent only connects
              out to this server, so the host needs no open port. Hosts named in mon.toml (
              <code>[[host]]</code>, or <code>hosts</code> of a <code>[[service]]</code>) are listed here too.
            </p>
          </div>
        ) : (
          <Table
            label="Hosts"
            testId="hosts"
            head={
              <>
                <th>Host</th>
                <th>Agent</th>
                <th className="num">CPU</th>
                <th className="num">Memory</th>
                <th className="num">Disk</th>
                <th className="num">Alerting</th>
                <th className="num">Discovered</th>
                <th>Services</th>
              </>
            }
          >
            {list.map((h) => (
              <tr key={h.name} data-host={h.name}>
                <td className="name-cell">
                  <Link href={`/hosts/${enc(h.name)}`}>{h.name}</Link>
                  {h.fromFile ? <div className="muted small">mon.toml</div> : null}
                </td>
                <td>
                  <AgentState agent={h.agent} />
                  {h.agent && !h.agent.connected ? (
                    <div className="muted small">since {formatWhen(h.agent.lastSeen)}</div>
                  ) : null}
                  <UpdateAvailable agent={h.agent} />
                </td>
                <td className="num">{formatPercent(h.cpu)}</td>
                <td className="num">{formatPercent(h.memory)}</td>
                <td className="num">{formatPercent(h.disk)}</td>
                <td className="num">
                  {h.alerting > 0 ? (
                    <span className="status status-down">
                      <span className="shape" aria-hidden="true">
                        ▼
                      </span>
                      {h.alerting}
                    </span>
                  ) : (
                    '0'
                  )}
                </td>
                <td className="num">{h.discovered}</td>
                <td className="small">
                  {h.services.length ? h.services.join(', ') : <span className="muted">none</span>}
                </td>
              </tr>
            ))}
          </Table>
        )}
      </section>
      {canWrite ? <AddHost names={list.map((h) => h.name)} onAdded={setAdded} /> : null}
    </>
  );
}

/** "Update available" under an agent that runs another build than mon serves, and how: a restart. */
function UpdateAvailable({ agent }: { agent: AgentInfo | null }) {
  const note = updateNote(agent);
  if (!note) return null;
  return (
    <div className="small" data-testid="update-available" title={note.detail}>
      {note.short}: <code>{RESTART_COMMANDS.systemd}</code> or <code>{RESTART_COMMANDS.docker}</code>
    </div>
  );
}

/** The add form; a name already listed is refused here, since adding it again would replace its token. */
function AddHost({ names, onAdded }: { names: string[]; onAdded: (added: AddedHost) => void }) {
  const refresh = useRefreshHosts();
  const form = useForm(
    async (data) => {
      const name = String(data.get('name') ?? '').trim();
      if (names.includes(name))
        throw new Invalid({ name: `${name} exists: to replace its token, use New token on its page` });
      onAdded(await addHost(name));
      void refresh();
    },
    { scope: 'host', fields: ['name'], reset: true },
  );
  return (
    <FormCard title="Add a host" action="Add host" form={form}>
      <Field {...form.field('name')} label="Name" hint="The name checks give in from, such as web-1.">
        <input {...form.control('name', { hint: true })} required placeholder="web-1" autoComplete="off" />
      </Field>
    </FormCard>
  );
}
