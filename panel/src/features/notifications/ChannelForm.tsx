import { useEffect, useRef, useState } from 'react';
import type { ChannelKind, ChannelRead } from '../../../../protocol/notify.ts';
import { ErrorBox } from '../../components/Feedback.tsx';
import { Field } from '../../components/Field.tsx';
import { ApiError } from '../../lib/api.ts';
import { Invalid, useForm } from '../../lib/form.ts';
import {
  bodyOfForm,
  emptyForm,
  type ChannelForm as FormState,
  formOfChannel,
  keepsStoredSecret,
  kindInfo,
  kinds,
  secretPlace,
} from './model.ts';
import { saveChannel, useRefreshChannels } from './queries.ts';

const fields = [
  'name',
  'kind',
  'url',
  'secret',
  'chatId',
  'smtp',
  'tls',
  'username',
  'from',
  'to',
  'allowPrivate',
];

/**
 * Add a channel (no `channel`) or change one: the kind first, then only that kind's fields. Editing,
 * the name and kind stay; an empty secret keeps the stored one, and so does an empty Slack or Discord URL.
 */
export function ChannelForm({ channel, onDone }: { channel?: ChannelRead; onDone?: () => void }) {
  const editing = channel !== undefined;
  const initial = channel ? formOfChannel(channel) : emptyForm();
  const [state, setState] = useState<FormState>(initial);
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) =>
    setState((prev) => ({ ...prev, [key]: value }));
  const refresh = useRefreshChannels();
  // An edit form opens on a click: its first field that can change takes the focus. The add form waits.
  const formRef = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (editing)
      formRef.current?.querySelector<HTMLElement>('input:not([readonly]), select:not([disabled])')?.focus();
  }, [editing]);
  const scope = editing ? `edit-${channel.name}` : 'new-channel';

  const form = useForm(
    async () => {
      try {
        await saveChannel(bodyOfForm(state), channel?.name ?? null);
      } catch (error) {
        // `to[1]: must be an email address` belongs to the one field of recipients.
        const named = error instanceof ApiError ? error.field() : null;
        if (named?.path.startsWith('to[')) throw new Invalid({ to: `${named.path}: ${named.message}` });
        throw error;
      }
      await refresh();
      if (!editing) setState(emptyForm(state.kind));
      onDone?.();
    },
    { scope, fields },
  );

  const info = kindInfo[state.kind];
  const shown = new Set(info.fields);
  const hasSecret = channel?.hasSecret === true;
  // A stored secret goes only where it went: a URL or SMTP server on another host needs it again.
  const place = secretPlace[state.kind];
  const secretHint = !hasSecret
    ? info.secret?.hint
    : keepsStoredSecret(channel, state)
      ? `A value is stored: leave empty to keep it${place ? ` (for another host in the ${place}, give it again)` : ''}.`
      : `Give the ${info.secret?.label.toLowerCase()} again: the stored one is not sent to another host.`;
  const title = editing ? `Change ${channel.name}` : 'Add a channel';
  return (
    <section className="card" aria-labelledby={`${scope}-title`}>
      <div className="card-head">
        <h2 id={`${scope}-title`}>{title}</h2>
      </div>
      <form ref={formRef} className="card-body" onSubmit={form.onSubmit} noValidate style={{ maxWidth: 760 }}>
        <div className="row">
          <Field {...form.field('kind')} label="Kind" hint={info.about}>
            <select
              {...form.control('kind', { hint: true })}
              value={state.kind}
              disabled={editing}
              onChange={(ev) => setState({ ...emptyForm(ev.target.value as ChannelKind), name: state.name })}
            >
              {kinds.map((k) => (
                <option key={k} value={k}>
                  {kindInfo[k].label}
                </option>
              ))}
            </select>
          </Field>
          <Field
            {...form.field('name')}
            label="Name"
            hint="Lowercase letters, digits and hyphens, such as ops-alerts."
          >
            <input
              {...form.control('name', { hint: true })}
              value={state.name}
              readOnly={editing}
              onChange={(ev) => set('name', ev.target.value)}
              spellCheck={false}
              required
            />
          </Field>
        </div>
        {shown.has('url') && info.url ? (
          <Field
            {...form.field('url')}
            label={info.url.label}
            hint={
              editing && info.urlSecret
                ? `Stored (${channel.settings?.urlHost ?? 'hidden'}): leave empty to keep it.`
                : info.url.hint
            }
          >
            <input
              {...form.control('url', { hint: true })}
              type="url"
              value={state.url}
              placeholder={info.url.placeholder}
              onChange={(ev) => set('url', ev.target.value)}
              spellCheck={false}
            />
          </Field>
        ) : null}
        {shown.has('smtp') ? (
          <div className="row">
            <Field
              {...form.field('smtp')}
              label="SMTP server"
              hint="host:port, such as smtp.example.com:587."
            >
              <input
                {...form.control('smtp', { hint: true })}
                value={state.smtp}
                placeholder="smtp.example.com:587"
                onChange={(ev) => set('smtp', ev.target.value)}
                spellCheck={false}
              />
            </Field>
            <Field {...form.field('tls')} label="Encryption">
              <select
                {...form.control('tls')}
                value={state.tls}
                onChange={(ev) => set('tls', ev.target.value as FormState['tls'])}
              >
                <option value="">By port: TLS on 465, otherwise STARTTLS when offered</option>
                <option value="true">TLS from the start</option>
                <option value="false">STARTTLS when the server offers it</option>
              </select>
            </Field>
          </div>
        ) : null}
        {shown.has('username') ? (
          <Field
            {...form.field('username')}
            label="SMTP username"
            hint="Empty: no sign-in (and no password)."
          >
            <input
              {...form.control('username', { hint: true })}
              value={state.username}
              autoComplete="off"
              onChange={(ev) => set('username', ev.target.value)}
            />
          </Field>
        ) : null}
        {shown.has('secret') && info.secret ? (
          <Field {...form.field('secret')} label={info.secret.label} hint={secretHint}>
            <input
              {...form.control('secret', { hint: true })}
              type="password"
              autoComplete="new-password"
              value={state.secret}
              disabled={state.removeSecret}
              onChange={(ev) => set('secret', ev.target.value)}
            />
            {hasSecret && info.secretOptional ? (
              <label className="check">
                <input
                  type="checkbox"
                  checked={state.removeSecret}
                  onChange={(ev) => set('removeSecret', ev.target.checked)}
                />
                Remove the stored {info.secret.label.toLowerCase()}
              </label>
            ) : null}
          </Field>
        ) : null}
        {shown.has('chatId') ? (
          <Field {...form.field('chatId')} label="Chat id" hint="Such as -1001234567890 for a group.">
            <input
              {...form.control('chatId', { hint: true })}
              value={state.chatId}
              onChange={(ev) => set('chatId', ev.target.value)}
              spellCheck={false}
            />
          </Field>
        ) : null}
        {shown.has('from') ? (
          <div className="row">
            <Field {...form.field('from')} label="From">
              <input
                {...form.control('from')}
                type="email"
                value={state.from}
                placeholder="mon@example.com"
                onChange={(ev) => set('from', ev.target.value)}
              />
            </Field>
            <Field {...form.field('to')} label="To" hint="One or more addresses, separated by commas.">
              <input
                {...form.control('to', { hint: true })}
                value={state.to}
                placeholder="ops@example.com, oncall@example.com"
                onChange={(ev) => set('to', ev.target.value)}
              />
            </Field>
          </div>
        ) : null}
        {shown.has('allowPrivate') ? (
          <Field
            {...form.field('allowPrivate')}
            label="Private addresses"
            hint="mon refuses to send to private, loopback and link-local addresses unless allowed: allow them for a server in your own network."
          >
            <label className="check">
              <input
                {...form.control('allowPrivate', { hint: true })}
                type="checkbox"
                checked={state.allowPrivate}
                onChange={(ev) => set('allowPrivate', ev.target.checked)}
              />
              Allow private addresses
            </label>
          </Field>
        ) : null}
        <ErrorBox error={form.formError} title="Could not save." />
        <div className="actions">
          <button type="submit" className="primary" disabled={form.busy}>
            {form.busy ? 'Saving…' : editing ? 'Save changes' : 'Add channel'}
          </button>
          {onDone ? (
            <button type="button" onClick={onDone}>
              Cancel
            </button>
          ) : null}
        </div>
      </form>
    </section>
  );
}
