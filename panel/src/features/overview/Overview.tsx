import { useEffect, useMemo, useRef, useState } from 'react';
import type { OverviewCheck } from '../../../../protocol/overview.ts';
import type { CheckStatus } from '../../../../protocol/reads.ts';
import { Loading, ReadError } from '../../components/Feedback.tsx';
import { RangePicker } from '../../components/RangePicker.tsx';
import { StatusBadge, severity } from '../../components/Status.tsx';
import { enc } from '../../lib/api.ts';
import { formatLatency, formatPercent } from '../../lib/format.ts';
import { Link, useLocation } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import { recoveryText } from '../checks/describe.ts';
import { maintenanceText } from '../windows/model.ts';
import { type OverviewRange, overviewRanges } from './keys.ts';
import { OpenIncidents } from './OpenIncidents.tsx';
import { useOverview } from './queries.ts';
import { RecentChanges } from './RecentChanges.tsx';
import { stripBackground, stripData, stripText } from './strip.ts';
import { Warnings } from './Warnings.tsx';
import './overview.css';

const byStatusThenName = <T extends { status: CheckStatus; name: string }>(a: T, b: T) =>
  severity[a.status] - severity[b.status] || a.name.localeCompare(b.name);

/**
 * Open incidents on top, warnings, then every service with its checks (problems first), each check with
 * its strip over the range and its latency; the deploys and changes of the range below.
 */
export function Overview() {
  const canWrite = useCanWrite();
  const { query } = useLocation();
  const range = (overviewRanges as readonly string[]).includes(query.get('range') ?? '')
    ? (query.get('range') as OverviewRange)
    : '24h';
  const overview = useOverview(range);
  const [filter, setFilter] = useState('');
  const search = useRef<HTMLInputElement>(null);

  useEffect(() => {
    document.title = 'Overview · mon';
    // "/" jumps to the filter, as in most tools.
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement;
      if (event.key === '/' && !['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) {
        event.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const view = useMemo(() => {
    const all = overview.data?.services ?? [];
    const needle = filter.trim().toLowerCase();
    const counts: Record<CheckStatus, number> = { up: 0, down: 0, degraded: 0, unknown: 0 };
    const list = [];
    for (const service of all) {
      for (const check of service.checks) counts[check.status] = (counts[check.status] ?? 0) + 1;
      const serviceHit = !needle || service.name.toLowerCase().includes(needle);
      const checks = serviceHit
        ? service.checks
        : service.checks.filter((c) => c.name.toLowerCase().includes(needle));
      if (serviceHit || checks.length > 0)
        list.push({ ...service, checks: [...checks].sort(byStatusThenName) });
    }
    list.sort(byStatusThenName);
    return { list, counts, total: all.length };
  }, [overview.data, filter]);

  if (overview.isPending) return <Loading />;
  if (overview.isError) return <ReadError error={overview.error} />;

  const o = overview.data;
  const { counts } = view;
  const problems = counts.down + counts.degraded;
  const stepMs = o.strip.stepMs;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Overview</h1>
          <p className="sub" data-testid="overview-summary">
            {view.total === 0
              ? 'Nothing is monitored yet.'
              : problems === 0
                ? 'All checks are passing.'
                : `${problems} ${problems === 1 ? 'check needs' : 'checks need'} attention.`}
          </p>
        </div>
        <div className="actions">
          <RangePicker ranges={overviewRanges} value={range} label="Time range" />
          {canWrite ? (
            <Link className="button primary" href="/checks/new">
              Add check
            </Link>
          ) : null}
        </div>
      </div>

      <OpenIncidents incidents={o.incidents} />
      <Warnings />

      {view.total > 0 ? (
        <div className="toolbar">
          <input
            ref={search}
            type="search"
            placeholder="Filter services and checks  ( / )"
            aria-label="Filter services and checks"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
          />
          <div className="summary">
            {(['down', 'degraded', 'unknown', 'up'] as const).map((s) =>
              counts[s] > 0 ? (
                <span key={s} className="muted small">
                  <StatusBadge status={s} /> {counts[s]}
                </span>
              ) : null,
            )}
          </div>
        </div>
      ) : null}

      {view.total === 0 ? (
        <div className="card empty">
          <h2>No checks yet</h2>
          <p>
            Checks watch web sites, ports, DNS names, hosts, domains and scheduled jobs. Add one here, or
            declare it in <code>mon.toml</code>.
          </p>
          {canWrite ? (
            <Link className="button primary" href="/checks/new">
              Add the first check
            </Link>
          ) : null}
        </div>
      ) : view.list.length === 0 ? (
        <p className="muted">Nothing matches “{filter}”.</p>
      ) : (
        view.list.map((service) => (
          <section key={service.name} className="card" aria-labelledby={`svc-${service.name}`}>
            <div className="service-head">
              <StatusBadge status={service.status} />
              <h2 id={`svc-${service.name}`}>
                <Link href={`/services/${enc(service.name)}`}>{service.name}</Link>
              </h2>
              {service.managed ? <span className="badge">mon.toml</span> : null}
              {service.maintenance ? (
                <span className="badge" data-testid="maintenance">
                  {maintenanceText(service.maintenance)}
                </span>
              ) : null}
              <span className="meta">
                {formatPercent(service.uptime)} <span className="muted">{range}</span>
              </span>
            </div>
            {service.checks.length === 0 ? (
              <p className="muted" style={{ padding: '0.5rem 1rem', margin: 0 }}>
                No checks.
              </p>
            ) : (
              <ul className="check-list">
                {service.checks.map((check) => (
                  <CheckLine key={check.id} check={check} stepMs={stepMs} range={range} />
                ))}
              </ul>
            )}
          </section>
        ))
      )}

      <RecentChanges deploys={o.deploys} changes={o.changes} />
    </>
  );
}

function CheckLine({ check, stepMs, range }: { check: OverviewCheck; stepMs: number; range: string }) {
  const words = stripText(check.strip, stepMs);
  return (
    <li data-check={check.name}>
      <StatusBadge status={check.status} recovering={check.recovering !== null} />
      <span className="check-name">
        <Link href={`/checks/${check.id}`} className="ellipsis" style={{ maxWidth: 'none' }}>
          {check.name}
        </Link>
        {check.recovering ? <span className="muted small">{recoveryText(check.recovering)}</span> : null}
      </span>
      <span
        className="strip"
        role="img"
        aria-label={`Last ${range}: ${words}`}
        title={`Last ${range}, ${words} · uptime ${formatPercent(check.uptime)}`}
        data-slots={stripData(check.strip)}
        style={{ background: stripBackground(check.strip) }}
      />
      <span className="latency" title={`Median over ${range}; last run ${formatLatency(check.latency.last)}`}>
        {formatLatency(check.latency.p50)}
        {check.latency.last === null ? null : (
          <span className="muted small"> last {formatLatency(check.latency.last)}</span>
        )}
      </span>
      <span className="kind extra">{check.kind}</span>
    </li>
  );
}
