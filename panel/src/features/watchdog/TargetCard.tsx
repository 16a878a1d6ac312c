import { useState } from 'react';
import type { WatchdogKind, WatchdogTarget } from '../../../../protocol/notify.ts';
import { Confirm } from '../../components/Confirm.tsx';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { useForm } from '../../lib/form.ts';
import { formatRelative, formatWhen } from '../../lib/format.ts';
import { putTarget, useRefreshWatchdog, useRemoveTarget } from './queries.ts';

const about: Record<
  WatchdogKind,
  { title: string; noun: string; what: string; fileTable: string; urlHint: string }
> = {
  edge: {
    title: 'Edge',
    noun: 'edge',
    what: 'A POST with a bearer token to a URL of yours, such as a small edge worker or another mon, which alerts when the requests stop.',
    fileTable: '[watchdog.edge]',
    urlHint: 'mon shows this URL without its query string.',
  },
  heartbeat: {
    title: 'Heartbeat URL',
    noun: 'heartbeat URL',
    what: 'A GET to the ping URL of a dead man’s switch in another monitoring service, such as https://hc.example.com/ping/<id>.',
    fileTable: '[watchdog.heartbeat]',
    urlHint: 'Its path is a secret: once saved, mon shows only its host.',
  },
};

/** One target: what it is, its state, and for admins the form to set, replace or remove it. */
export function TargetCard({
  kind,
  target,
  canWrite,
}: {
  kind: WatchdogKind;
  target: WatchdogTarget | null;
  canWrite: boolean;
}) {
  const text = about[kind];
  return (
    <section className="card" aria-labelledby={`${kind}-title`} data-testid={`watchdog-${kind}`}>
      <div className="card-head">
        <h2 id={`${kind}-title`}>{text.title}</h2>
        {target?.managed ? <span className="badge">set in mon.toml</span> : null}
      </div>
      <div className="card-body">
        <p className="muted" style={{ marginTop: 0 }}>
          {text.what}
        </p>
        {target ? <TargetState target={target} /> : <p>Not set.</p>}
        {target?.managed ? (
          <p className="muted">
            Set by <code>{text.fileTable}</code> of mon.toml: change it there.
          </p>
        ) : canWrite ? (
          <TargetForm kind={kind} target={target} />
        ) : null}
      </div>
    </section>
  );
}

function TargetState({ target }: { target: WatchdogTarget }) {
  return (
    <dl className="kv" style={{ marginBottom: '1rem' }}>
      <dt>Address</dt>
      <dd className="mono">{target.address}</dd>
      <dt>Last sent</dt>
      <dd>
        {target.lastSentAt
          ? `${formatWhen(target.lastSentAt)} (${formatRelative(target.lastSentAt)})`
          : 'never'}
      </dd>
      {target.lastError ? (
        <>
          <dt>Last error</dt>
          <dd className="status-down">
            {target.lastError}
            {target.lastErrorAt ? ` (${formatWhen(target.lastErrorAt)})` : ''}
          </dd>
        </>
      ) : null}
      {target.allowPrivate ? (
        <>
          <dt>Private addresses</dt>
          <dd>allowed</dd>
        </>
      ) : null}
    </dl>
  );
}

function TargetForm({ kind, target }: { kind: WatchdogKind; target: WatchdogTarget | null }) {
  const text = about[kind];
  const refresh = useRefreshWatchdog();
  const [saved, setSaved] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const remove = useRemoveTarget(kind, () => setConfirming(false));
  const form = useForm(
    async (data) => {
      setSaved(false);
      const url = String(data.get('url') ?? '').trim();
      const allowPrivate = data.get('allowPrivate') === 'on';
      const token = String(data.get('token') ?? '').trim();
      await putTarget(
        kind,
        kind === 'edge' ? { url, token: token || null, allowPrivate } : { url, allowPrivate },
      );
      setSaved(true);
      await refresh();
    },
    { scope: kind, fields: ['url', 'token', 'allowPrivate'], reset: true },
  );
  const removeId = `remove-${kind}`;

  return (
    <>
      <form onSubmit={form.onSubmit} noValidate>
        <div className="row">
          <Field {...form.field('url')} label="URL" hint={text.urlHint}>
            <input {...form.control('url', { hint: true })} type="url" required placeholder="https://" />
          </Field>
          {kind === 'edge' ? (
            <Field
              {...form.field('token')}
              label="Token"
              hint={
                target
                  ? 'Sent as Authorization: Bearer. Leave empty to keep the stored one (same host only).'
                  : 'Sent as Authorization: Bearer.'
              }
            >
              <input {...form.control('token', { hint: true })} type="password" autoComplete="off" />
            </Field>
          ) : null}
        </div>
        <Field
          {...form.field('allowPrivate')}
          label="Private addresses"
          hint="For a box on your own network: lets the URL reach a private address or use plain http://."
        >
          <label className="check">
            <input
              {...form.control('allowPrivate', { hint: true })}
              type="checkbox"
              // Remounted when the stored target changes, so that it starts as that one is.
              key={String(target?.allowPrivate)}
              defaultChecked={target?.allowPrivate ?? false}
            />
            Allow private addresses
          </label>
        </Field>
        <ErrorBox error={form.formError} />
        {saved ? (
          <p role="status" className="muted">
            Saved: the first request is on its way.
          </p>
        ) : null}
        <div className="actions" style={{ justifyContent: 'flex-start' }}>
          <button type="submit" className="primary" disabled={form.busy}>
            {target ? `Replace ${text.noun}` : `Set ${text.noun}`}
          </button>
          {target && !confirming ? (
            <button type="button" id={removeId} className="danger" onClick={() => setConfirming(true)}>
              Remove
            </button>
          ) : null}
        </div>
      </form>
      {confirming ? (
        <Confirm
          question={`Remove the ${text.noun}? mon stops sending to it.`}
          action="Remove"
          busy={remove.isPending}
          trigger={removeId}
          onConfirm={() => remove.mutate()}
          onCancel={() => setConfirming(false)}
        />
      ) : null}
      <ErrorBox error={remove.error} />
    </>
  );
}
