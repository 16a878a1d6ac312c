import { useState } from 'react';
import type { DiscoveredItem } from '../../../../protocol/hosts.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { ActionsHeader, Table } from '../../components/Table.tsx';
import { enc } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { useForm } from '../../lib/form.ts';
import { formatWhen } from '../../lib/format.ts';
import { Link } from '../../lib/router.tsx';
import { serviceNameFor } from './describe.ts';
import { useDismiss, useMonitor } from './queries.ts';

/**
 * Containers and units of this host that belong to no service. Monitor makes the service (if missing)
 * and links the host to it; Dismiss stops listing the item.
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
  return (
    <section className="card" aria-labelledby="discovered-title" data-testid="discovered">
      <div className="card-head">
        <h2 id="discovered-title">Discovered</h2>
        <span className="muted small">containers and units of no service</span>
      </div>
      {done ? (
        <div className="card-body" role="status">
          Monitored: <Link href={`/services/${enc(done)}`}>{done}</Link> runs on {host}; add checks to it on
          its page.
        </div>
      ) : null}
      <ErrorBox error={dismiss.error} title="Could not dismiss." />
      {items.length === 0 ? (
        <p className="empty">Every container and unit of this host belongs to a service, or was dismissed.</p>
      ) : (
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
          {items.flatMap((item) => [
            <tr key={item.id} data-discovered={item.name}>
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
                    aria-expanded={monitoring === item.id}
                    onClick={() => setMonitoring(monitoring === item.id ? null : item.id)}
                  >
                    Monitor
                  </button>
                  <button
                    type="button"
                    className="link-button"
                    disabled={dismiss.isPending}
                    onClick={() => dismiss.mutate([item.id])}
                    aria-label={`Dismiss ${item.name}`}
                  >
                    Dismiss
                  </button>
                </td>
              ) : null}
            </tr>,
            ...(monitoring === item.id
              ? [
                  <tr key={`${item.id}-monitor`}>
                    <td colSpan={4}>
                      <MonitorForm
                        host={host}
                        item={item}
                        onDone={(service) => {
                          setMonitoring(null);
                          setDone(service);
                        }}
                      />
                    </td>
                  </tr>,
                ]
              : []),
          ])}
        </Table>
      )}
    </section>
  );
}

function MonitorForm({
  host,
  item,
  onDone,
}: {
  host: string;
  item: DiscoveredItem;
  onDone: (service: string) => void;
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
    <form onSubmit={form.onSubmit} noValidate className="monitor-form">
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
        Monitor {item.name}
      </button>
    </form>
  );
}
