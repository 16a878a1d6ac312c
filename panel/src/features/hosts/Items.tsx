import { memo, useCallback, useMemo, useState } from 'react';
import type { ContainerRow, UnitRow } from '../../../../protocol/hosts.ts';
import { ErrorBox, Loading } from '../../components/Feedback.tsx';
import { Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { formatBytes, formatCpu } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { BoundedControls, useBounded } from './Bounded.tsx';
import { Chart } from './HostCharts.tsx';
import { itemWords, orderItems } from './item-order.ts';
import type { Range } from './keys.ts';
import { useItemSeries } from './queries.ts';

type Kind = 'container' | 'unit';

/** The shape of each look, as the checks' status has (components/Status.tsx): colour is never alone. */
const shapes = { up: '●', down: '▼', unknown: '○' } as const;

/** Good, bad or neither, for the colour and shape of a state; the state's own word is always shown. */
function stateLook(kind: Kind, row: ContainerRow | UnitRow): 'up' | 'down' | 'unknown' {
  if (kind === 'container') {
    const c = row as ContainerRow;
    if (c.health === 'unhealthy' || c.state === 'dead' || (c.state === 'exited' && c.exitCode !== 0))
      return 'down';
    return c.state === 'running' ? 'up' : 'unknown';
  }
  const u = row as UnitRow;
  return u.state === 'failed' ? 'down' : u.state === 'active' ? 'up' : 'unknown';
}

function stateText(kind: Kind, row: ContainerRow | UnitRow): string {
  if (kind === 'container') {
    const c = row as ContainerRow;
    const exit = c.state === 'exited' && c.exitCode !== null ? ` (exit ${c.exitCode})` : '';
    return `${c.state}${exit}${c.health ? `, ${c.health}` : ''}`;
  }
  const u = row as UnitRow;
  return `${u.state} (${u.subState})`;
}

/**
 * The containers or systemd units of a host as last seen, each with its chart on demand: those in
 * trouble first, then the busiest, the first SHOWN of them until asked for all or filtered.
 */
export function Items({
  host,
  kind,
  rows,
  range,
}: {
  host: string;
  kind: Kind;
  rows: (ContainerRow | UnitRow)[];
  range: Range;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  // Stable, so that a row whose data did not change skips the refresh (ItemRow is memoised).
  const toggle = useCallback(
    (name: string) =>
      setOpen((was) => {
        const next = new Set(was);
        if (!next.delete(name)) next.add(name);
        return next;
      }),
    [],
  );
  const title = kind === 'container' ? 'Containers' : 'systemd units';
  const ordered = useMemo(() => orderItems(rows), [rows]);
  const list = useBounded(ordered, itemWords);
  return (
    <section className="card" aria-labelledby={`${kind}s-title`}>
      <div className="card-head">
        <h2 id={`${kind}s-title`}>{title}</h2>
        <span className="muted small">
          {rows.length} · in trouble first, then by CPU · CPU in percent of one core, memory without cache
        </span>
      </div>
      {rows.length === 0 ? (
        <p className="empty">
          {kind === 'container'
            ? 'No containers: none run, or the agent cannot read the container runtime socket.'
            : 'No units: the host has no systemd, or the agent cannot ask it.'}
        </p>
      ) : (
        <>
          <BoundedControls
            list={list}
            total={rows.length}
            what={kind === 'container' ? 'containers' : 'units'}
            testId={`${kind}s-controls`}
          />
          {list.shown.length > 0 ? (
            <Table
              testId={`${kind}s`}
              head={
                <>
                  <th>Name</th>
                  <th>State</th>
                  <th className="num">Restarts</th>
                  <th className="num">CPU</th>
                  <th className="num">Memory</th>
                  <th>Service</th>
                  <th>
                    <span className="sr-only">Chart</span>
                  </th>
                </>
              }
            >
              {list.shown.map((row) => (
                <ItemRow
                  key={row.name}
                  host={host}
                  kind={kind}
                  row={row}
                  range={range}
                  expanded={open.has(row.name)}
                  onToggle={toggle}
                />
              ))}
            </Table>
          ) : null}
        </>
      )}
    </section>
  );
}

/** One container or unit, and its charts below it when open. */
const ItemRow = memo(function ItemRow({
  host,
  kind,
  row,
  range,
  expanded,
  onToggle,
}: {
  host: string;
  kind: Kind;
  row: ContainerRow | UnitRow;
  range: Range;
  expanded: boolean;
  onToggle: (name: string) => void;
}) {
  const image = kind === 'container' ? (row as ContainerRow).image : null;
  const look = stateLook(kind, row);
  return (
    <>
      <tr data-item={row.name}>
        <td className="name-cell">
          <span className="mono">{row.name}</span>
          {image ? <div className="muted small mono">{image}</div> : null}
        </td>
        <td>
          <span className={`status status-${look}`}>
            <span className="shape" aria-hidden="true">
              {shapes[look]}
            </span>
            {stateText(kind, row)}
          </span>
        </td>
        <td className="num">{row.restarts}</td>
        <td className="num">{formatCpu(row.cpu)}</td>
        <td className="num">{formatBytes(row.memory)}</td>
        <td>
          {row.service ? (
            <Link href={`/services/${enc(row.service)}`}>{row.service}</Link>
          ) : (
            <span className="muted small">none</span>
          )}
        </td>
        <td className="num">
          <button
            type="button"
            className="link-button"
            aria-expanded={expanded}
            aria-label={`${expanded ? 'Hide' : 'Show'} the chart of ${row.name}`}
            onClick={() => onToggle(row.name)}
          >
            {expanded ? 'Hide chart' : 'Chart'}
          </button>
        </td>
      </tr>
      {expanded ? (
        <tr className="item-chart-row">
          <td colSpan={7}>
            <ItemCharts host={host} kind={kind} name={row.name} range={range} />
          </td>
        </tr>
      ) : null}
    </>
  );
});

/** CPU and memory of one container or unit over the range, mean and maximum per step. */
function ItemCharts({ host, kind, name, range }: { host: string; kind: Kind; name: string; range: Range }) {
  const series = useItemSeries(host, kind, name, range);
  const lines = useMemo(() => {
    const s = series.data;
    if (!s) return null;
    return {
      cpu: [
        { label: 'mean', values: s.cpu, color: '--accent', width: 2 },
        { label: 'max', values: s.cpuMax, color: '--degraded', dash: true },
      ],
      mem: [
        { label: 'mean', values: s.mem, color: '--accent', width: 2 },
        { label: 'max', values: s.memMax, color: '--degraded', dash: true },
      ],
    };
  }, [series.data]);
  if (series.isPending) return <Loading label="Loading chart…" />;
  if (series.isError) return <ErrorBox error={series.error} />;
  const s = series.data;
  return (
    <div className="item-charts" data-item-chart={name}>
      <figure className="host-chart">
        <figcaption>
          <h3>CPU of {name}</h3>
          <span className="muted small">percent of one core</span>
        </figcaption>
        <Chart
          x={s.x}
          stepMs={s.stepMs}
          lines={lines!.cpu}
          format={formatCpu}
          minTop={10}
          label={`CPU of ${name}`}
        />
      </figure>
      <figure className="host-chart">
        <figcaption>
          <h3>Memory of {name}</h3>
        </figcaption>
        <Chart
          x={s.x}
          stepMs={s.stepMs}
          lines={lines!.mem}
          format={formatBytes}
          minTop={1024 * 1024}
          label={`Memory of ${name}`}
        />
      </figure>
    </div>
  );
}
