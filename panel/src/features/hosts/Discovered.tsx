import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { DiscoveredItem } from '../../../../protocol/hosts.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { ActionsHeader, Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { closeAndFocus, useFocusOnMount } from '../../lib/focus.ts';
import { useForm } from '../../lib/form.ts';
import { formatWhen } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { BoundedControls, useBounded } from './Bounded.tsx';
import { serviceNameFor } from './describe.ts';
import { discoveredWords, orderDiscovered } from './item-order.ts';
import { useDismiss, useMonitor } from './queries.ts';

/**
 * Containers and units of this host that belong to no service, the newest first, the first SHOWN of
 * them until asked for all or filtered. Monitor makes the service (if missing) and links the host to
 * it; Dismiss stops listing the item, and the focus moves on to the next item's Dismiss (or the list).
 */
export function Discovered({
  host,
  items,
  canWrite,
}: {
  host: string;
  items: DiscoveredItem[];
  canWrite: boolean;
}) {
  const [monitoring, setMonitoring] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const dismiss = useDismiss();
  const ordered = useMemo(() => orderDiscovered(items), [items]);
  const list = useBounded(ordered, discoveredWords);
  // Where the focus goes once a dismissed item has left the list: the next item's Dismiss, or the list.
  const [focusAfter, setFocusAfter] = useState<{ gone: string; next: string | null } | null>(null);
  const shown = useRef(list.shown);
  shown.current = list.shown;
  // Stable, so that a row whose item did not change skips the refresh (DiscoveredRow is memoised).
  const { mutate } = dismiss;
  const onDismiss = useCallback(
    (id: string) => {
      const items = shown.current;
      const at = items.findIndex((i) => i.id === id);
      const next = items[at + 1] ?? items[at - 1] ?? null;
      setFocusAfter({ gone: id, next: next?.id ?? null });
      mutate([id], { onError: () => setFocusAfter(null) });
    },
    [mutate],
  );
  useEffect(() => {
    if (!focusAfter || list.shown.some((i) => i.id === focusAfter.gone)) return;
    setFocusAfter(null);
    const next = focusAfter.next === null ? null : document.getElementById(`dismiss-${focusAfter.next}`);
    (next ?? document.getElementById('discovered-title'))?.focus();
  }, [focusAfter, list.shown]);
  const doneBox = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // The monitored item leaves the list: the focus goes to what became of it.
    if (done) doneBox.current?.focus();
  }, [done]);
  const onMonitor = useCallback((id: string) => setMonitoring((was) => (was === id ? null : id)), []);
  const onMonitored = useCallback((service: string) => {
    setMonitoring(null);
    setDone(service);
  }, []);
  return (
    <section className="card" aria-labelledby="discovered-title" data-testid="discovered">
      <div className="card-head">
        <h2 id="discovered-title" tabIndex={-1}>
          Discovered
        </h2>
        <span className="muted small">{items.length} · containers and units of no service, newest first</span>
      </div>
      {done ? (
        <div className="card-body" role="status" ref={doneBox} tabIndex={-1}>
          Monitored: <Link href={`/services/${enc(done)}`}>{done}</Link> runs on {host}; add checks to it on
          its page.
        </div>
      ) : null}
      <ErrorBox error={dismiss.error} title="Could not dismiss." />
      {items.length === 0 ? (
        <p className="empty">Every container and unit of this host belongs to a service, or was dismissed.</p>
      ) : (
        <>
          <BoundedControls
            list={list}
            total={items.length}
            what="discovered items"
            testId="discovered-controls"
          />
          {list.shown.length > 0 ? (
            <Table
              testId="discovered-items"
              head={
                <>
                  <th>Item</th>
                  <th>State</th>
                  <th>Seen since</th>
                  {canWrite ? <ActionsHeader /> : null}
                </>
              }
            >
              {list.shown.map((item) => (
                <DiscoveredRow
                  key={item.id}
                  host={host}
                  item={item}
                  canWrite={canWrite}
                  monitoring={monitoring === item.id}
                  onMonitor={onMonitor}
                  onDismiss={onDismiss}
                  onMonitored={onMonitored}
                />
              ))}
            </Table>
          ) : null}
        </>
      )}
    </section>
  );
}

/** One discovered item with Monitor and Dismiss, and the Monitor form below it when open. */
const DiscoveredRow = memo(function DiscoveredRow({
  host,
  item,
  canWrite,
  monitoring,
  onMonitor,
  onDismiss,
  onMonitored,
}: {
  host: string;
  item: DiscoveredItem;
  canWrite: boolean;
  monitoring: boolean;
  onMonitor: (id: string) => void;
  onDismiss: (id: string) => void;
  onMonitored: (service: string) => void;
}) {
  return (
    <>
      <tr data-discovered={item.name}>
        <td className="name-cell">
          <span className="badge">{item.kind}</span> <span className="mono">{item.name}</span>
          {item.image ? <div className="muted small mono">{item.image}</div> : null}
        </td>
        <td className="small">{item.state}</td>
        <td className="small when">{formatWhen(item.firstSeen)}</td>
        {canWrite ? (
          <td className="num">
            <button
              type="button"
              id={`monitor-${item.id}`}
              className="link-button"
              aria-expanded={monitoring}
              aria-label={`Monitor ${item.name}`}
              onClick={() => onMonitor(item.id)}
            >
              Monitor
            </button>
            <button
              type="button"
              id={`dismiss-${item.id}`}
              className="link-button"
              onClick={() => onDismiss(item.id)}
              aria-label={`Dismiss ${item.name}`}
            >
              Dismiss
            </button>
          </td>
        ) : null}
      </tr>
      {monitoring ? (
        <tr>
          <td colSpan={4}>
            <MonitorForm
              host={host}
              item={item}
              onDone={onMonitored}
              onClose={() => closeAndFocus(() => onMonitor(item.id), `monitor-${item.id}`)}
            />
          </td>
        </tr>
      ) : null}
    </>
  );
});

function MonitorForm({
  host,
  item,
  onDone,
  onClose,
}: {
  host: string;
  item: DiscoveredItem;
  onDone: (service: string) => void;
  /** Escape: the form closes and Monitor has the focus again. */
  onClose: () => void;
}) {
  const monitor = useMonitor();
  const input = useFocusOnMount<HTMLInputElement>();
  const form = useForm(
    async (data) => {
      const saved = await monitor.mutateAsync({ host, service: String(data.get('service') ?? '').trim() });
      onDone(saved.service);
    },
    { scope: `monitor-${item.id}`, fields: ['service'] },
  );
  return (
    <form
      onSubmit={form.onSubmit}
      noValidate
      className="monitor-form"
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <Field
        {...form.field('service')}
        label="Service"
        hint={`A service of that name is made if there is none, and ${host} is linked to it.`}
      >
        <input
          {...form.control('service', { hint: true })}
          defaultValue={serviceNameFor(item)}
          ref={input}
          required
        />
      </Field>
      <ErrorBox error={form.formError} title="Could not monitor." />
      <button type="submit" className="primary" disabled={form.busy}>
        Monitor in this service
      </button>
    </form>
  );
}
