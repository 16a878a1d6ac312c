import { useState } from 'react';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { useForm } from '../../lib/form.ts';
import { useRefreshSettings } from '../../lib/settings.ts';
import { useServices } from '../services/queries.ts';
import { type Draft, kindWords, type Length, lengths, toBody } from './model.ts';
import { saveWindow } from './queries.ts';

const fields = ['scope', 'name', 'starts', 'ends', 'reason'] as const;

/**
 * A new silence or maintenance window (`id` null), or changes to one: what it holds (everything, a
 * service or a host, chosen from those mon knows), when it starts (now or at a time), how long it lasts
 * (a preset or an end time), and why.
 */
export function WindowForm({
  id,
  initial,
  onDone,
}: {
  id: string | null;
  initial: Draft;
  onDone: () => void;
}) {
  const [draft, setDraft] = useState(initial);
  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const refresh = useRefreshSettings();
  const services = useServices();
  const form = useForm(
    async () => {
      await saveWindow(draft.kind, id, toBody(draft, Date.now()));
      await refresh();
      onDone();
    },
    { scope: 'window', fields },
  );
  const serviceNames = services.data?.services.map((s) => s.name) ?? [];
  const hostNames = [...new Set(services.data?.services.flatMap((s) => s.hosts) ?? [])].sort();
  const names = draft.scope === 'host' ? hostNames : serviceNames;
  const words = kindWords[draft.kind];

  return (
    <section className="card" aria-labelledby="window-form-title">
      <div className="card-head">
        <h2 id="window-form-title">{id === null ? `New ${words.one}` : `Change the ${words.one}`}</h2>
      </div>
      <form className="card-body" onSubmit={form.onSubmit} noValidate>
        <div className="row">
          {id === null ? (
            <Field
              path="kind"
              scope="window"
              label="Kind"
              hint={
                draft.kind === 'silence'
                  ? 'Mutes notifications'
                  : 'Mutes notifications, marks incidents, leaves its time out of uptime'
              }
            >
              <select
                id="window-kind"
                aria-describedby="window-kind-hint"
                value={draft.kind}
                onChange={(e) => set({ kind: e.target.value as Draft['kind'] })}
              >
                <option value="silence">Silence</option>
                <option value="maintenance">Maintenance window</option>
              </select>
            </Field>
          ) : null}
          <Field {...form.field('scope')} label="Holds">
            <select
              {...form.control('scope')}
              value={draft.scope}
              onChange={(e) => set({ scope: e.target.value as Draft['scope'], name: '' })}
            >
              <option value="all">everything</option>
              <option value="service">a service</option>
              <option value="host">a host</option>
            </select>
          </Field>
          {draft.scope === 'all' ? null : (
            <Field {...form.field('name')} label={draft.scope === 'host' ? 'Host' : 'Service'}>
              <select
                {...form.control('name')}
                value={draft.name}
                onChange={(e) => set({ name: e.target.value })}
              >
                <option value="">Choose…</option>
                {/* A name from a link may not be listed (yet): keep it choosable. */}
                {[...new Set(draft.name && !names.includes(draft.name) ? [draft.name, ...names] : names)].map(
                  (n) => (
                    <option key={n} value={n}>
                      {n}
                    </option>
                  ),
                )}
              </select>
            </Field>
          )}
          <Field {...form.field('starts')} label="Starts">
            <select
              {...form.control('starts')}
              value={draft.startNow ? 'now' : 'at'}
              onChange={(e) => set({ startNow: e.target.value === 'now' })}
            >
              <option value="now">now</option>
              <option value="at">at a time</option>
            </select>
            {draft.startNow ? null : (
              <input
                type="datetime-local"
                aria-label="Start time"
                value={draft.startAt}
                onChange={(e) => set({ startAt: e.target.value })}
              />
            )}
          </Field>
          <Field {...form.field('ends')} label="Lasts">
            <select
              {...form.control('ends')}
              value={draft.length}
              onChange={(e) => set({ length: e.target.value as Length })}
            >
              {lengths.map((l) => (
                <option key={l.value} value={l.value}>
                  {l.label}
                </option>
              ))}
            </select>
            {draft.length === 'until' ? (
              <input
                type="datetime-local"
                aria-label="End time"
                value={draft.until}
                onChange={(e) => set({ until: e.target.value })}
              />
            ) : null}
          </Field>
          <Field {...form.field('reason')} label="Reason" hint="Optional, up to 500 characters">
            <input
              {...form.control('reason', { hint: true })}
              value={draft.reason}
              maxLength={500}
              placeholder="Database upgrade"
              onChange={(e) => set({ reason: e.target.value })}
            />
          </Field>
        </div>
        <ErrorBox error={form.formError} />
        <div className="actions">
          <button type="submit" className="primary" disabled={form.busy}>
            Save
          </button>
          <button type="button" onClick={onDone}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
