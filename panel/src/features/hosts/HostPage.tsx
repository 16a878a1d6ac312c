import { useEffect, useState } from 'react';
import type { AddedHost, HostRead } from '../../../../protocol/hosts.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { RangePicker } from '../../components/RangePicker.tsx';
import { enc } from '../../lib/api.ts';
import { timesNote } from '../../lib/chart-time.ts';
import { formatRelative, formatTime, formatWhen } from '../../lib/format.ts';
import { Link, useLocation } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { AgentState } from './AgentState.tsx';
import { Discovered } from './Discovered.tsx';
import { clockNote, metricWords, outdatedNote, RESTART_COMMANDS, updateNote } from './describe.ts';
import { HostCharts } from './HostCharts.tsx';
import { HostChecks } from './HostChecks.tsx';
import { Installed } from './Installed.tsx';
import { Items } from './Items.tsx';
import { type Range, ranges } from './keys.ts';
import { useHost, useNewToken } from './queries.ts';
import { RemoveHost } from './RemoveHost.tsx';
import { Thresholds } from './Thresholds.tsx';
import './hosts.css';

/** One host: its agent, what alerts now, its charts over a range, containers and units, checks, thresholds, discovered items. */
export default function HostPage({ name }: { name: string }) {
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const range = (ranges as readonly string[]).includes(query.get('range') ?? '')
    ? (query.get('range') as Range)
    : '24h';
  const host = useHost(name, range);
  const [added, setAdded] = useState<AddedHost | null>(null);
  useEffect(() => {
    document.title = `${name} · mon`;
  }, [name]);

  if (host.isPending) return <Loading />;
  if (host.isError) return <ReadError error={host.error} />;
  const h = host.data;
  const outdated = outdatedNote(h.agent);
  const update = updateNote(h.agent);
  const clock = clockNote(h.agent);

  return (
    <>
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link href="/hosts">Hosts</Link> /
          </div>
          <h1 style={{ display: 'flex', gap: '0.6rem', alignItems: 'center', flexWrap: 'wrap' }}>
            {h.name} <AgentState agent={h.agent} />
          </h1>
          <p className="sub">
            {h.services.length > 0 ? (
              <>
                Runs{' '}
                {h.services.map((s, n) => (
                  <span key={s}>
                    {n > 0 ? ', ' : ''}
                    <Link href={`/services/${enc(s)}`}>{s}</Link>
                  </span>
                ))}
              </>
            ) : (
              'Linked to no service'
            )}
            {h.fromFile ? ' · named in mon.toml' : ''}
          </p>
        </div>
        {canWrite ? (
          <div className="actions">
            <NewToken name={h.name} onDone={setAdded} />
            {/* A host of mon.toml goes by taking it out of the file. */}
            {h.fromFile ? null : <RemoveHost host={h} />}
          </div>
        ) : null}
      </div>
      {added ? <Installed added={added} onDone={() => setAdded(null)} returnTo="new-token" /> : null}
      {outdated ? (
        <div className="alert" data-testid="outdated">
          {outdated}
        </div>
      ) : null}
      {update ? (
        <div className="alert" data-testid="update">
          <strong>{update.short}.</strong> {update.detail} With systemd:{' '}
          <code>{RESTART_COMMANDS.systemd}</code>; with Docker: <code>{RESTART_COMMANDS.docker}</code>.
        </div>
      ) : null}
      {clock ? (
        <div className="alert" data-testid="clock">
          {clock}
        </div>
      ) : null}

      <AgentFacts host={h} />
      <Alerting host={h} />

      <section className="card" aria-labelledby="charts-title">
        <div className="card-head">
          <h2 id="charts-title">Metrics</h2>
          <RangePicker ranges={ranges} value={range} label="Time range" />
        </div>
        <div className="card-body">
          <HostCharts series={h.series} now={h.now} alerts={h.alerts} cores={h.agent?.cores ?? null} />
          <p className="muted small" data-testid="times-note">
            {h.now ? `Latest sample ${formatWhen(h.now.ts)}. ` : ''}
            {timesNote(h.series.stepMs)}; now {formatTime(Date.now())}.
          </p>
        </div>
      </section>

      <Items host={h.name} kind="container" rows={h.containers} range={range} />
      <Items host={h.name} kind="unit" rows={h.units} range={range} />
      <HostChecks host={h} />
      <Thresholds host={h} canWrite={canWrite} />
      <Discovered host={h.name} items={h.discovered} canWrite={canWrite} />
    </>
  );
}

/** "New token…", after a confirmation: the old token stops working at once. */
function NewToken({ name, onDone }: { name: string; onDone: (added: AddedHost) => void }) {
  const [confirming, setConfirming] = useState(false);
  const make = useNewToken(name, (added) => {
    setConfirming(false);
    onDone(added);
  });
  return (
    <div className="actions">
      {confirming ? (
        <Confirm
          question={`Make a new token? The current token of ${name} stops working at once: its agent is refused until it runs with the new one.`}
          action="Make a new token"
          busy={make.isPending}
          trigger="new-token"
          onConfirm={() => make.mutate()}
          onCancel={() => setConfirming(false)}
        />
      ) : (
        <button type="button" id="new-token" onClick={() => setConfirming(true)}>
          New token…
        </button>
      )}
      <ErrorBox error={make.error} title="Could not make a token." />
    </div>
  );
}

function AgentFacts({ host }: { host: HostRead }) {
  const a = host.agent;
  return (
    <section className="card" aria-labelledby="agent-title" data-testid="agent">
      <div className="card-head">
        <h2 id="agent-title">Agent</h2>
        <AgentState agent={a} detail />
      </div>
      <div className="card-body">
        {a ? (
          <dl className="kv">
            <dt>Version</dt>
            <dd>
              {a.version} <span className="muted small">(protocol {a.protocol})</span>
            </dd>
            <dt>System</dt>
            <dd>
              {a.os} · kernel {a.kernel} · {a.arch}
            </dd>
            <dt>Cores</dt>
            <dd>{a.cores}</dd>
            <dt>Hostname</dt>
            <dd className="mono">{a.hostname}</dd>
            <dt>Last seen</dt>
            <dd>
              {formatWhen(a.lastSeen)} ({formatRelative(a.lastSeen)})
            </dd>
            <dt>First seen</dt>
            <dd>{formatWhen(a.firstSeen)}</dd>
          </dl>
        ) : (
          <p style={{ margin: 0 }}>
            No agent has connected for {host.name} yet. Install it with the command shown when the host was
            added; if you no longer have it, make a new token.
          </p>
        )}
      </div>
    </section>
  );
}

function Alerting({ host }: { host: HostRead }) {
  return (
    <section className="card" aria-labelledby="alerting-title" data-testid="alerting">
      <div className="card-head">
        <h2 id="alerting-title">Alerting now</h2>
        <span className="muted small">{host.alerting.length}</span>
      </div>
      {host.alerting.length === 0 ? (
        <p className="empty">Nothing on this host alerts now.</p>
      ) : (
        <ul className="alerting">
          {host.alerting.map((a) => (
            <li key={a.key} data-alert={a.key}>
              <span className="status status-down">
                <span className="shape" aria-hidden="true">
                  ▼
                </span>
                {metricWords[a.metric]}
              </span>{' '}
              {a.metric === 'container' ? <strong className="mono">{a.name}</strong> : null}{' '}
              <span>{a.detail}</span> <span className="muted small">since {formatWhen(a.since)}</span>{' '}
              {a.incident ? <Link href={`/incidents/${a.incident}`}>incident</Link> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
