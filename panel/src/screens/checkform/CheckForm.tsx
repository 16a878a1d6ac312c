import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useEffect, useState } from 'react';
import { ErrorBox, Loading, ReadError } from '../../components/Feedback.tsx';
import { control, Field, fieldId } from '../../components/Field.tsx';
import { ApiError, enc, get, post, put } from '../../lib/api.ts';
import { useFocusOnMount } from '../../lib/focus.ts';
import { Link, navigate, useLocation } from '../../lib/router.tsx';
import { useCanWrite } from '../../lib/session.ts';
import type { CheckDefinitionRead, ServiceSummary } from '../../lib/types.ts';
import { readOnlyReason } from '../check/CheckPage.tsx';
import { pingUrlKey } from '../check/Heartbeat.tsx';
import { ExpectEditor } from './ExpectEditor.tsx';
import { HeadersEditor } from './HeadersEditor.tsx';
import {
  bodyFromForm,
  emptyForm,
  type FieldErrors,
  type FormState,
  fieldLabel,
  formFromBody,
  kindInfo,
  kinds,
  methods,
  readableMessage,
} from './model.ts';

/** Create (no id) or edit a check of any kind; the server's 422 lands at the field it names. */
export default function CheckForm({ id }: { id?: string }) {
  const definition = useQuery({
    queryKey: ['check', id ?? 'new', 'definition'],
    queryFn: () => get<CheckDefinitionRead>(`/checks/${enc(id!)}`),
    enabled: !!id,
    staleTime: Number.POSITIVE_INFINITY,
  });
  const { query } = useLocation();
  useEffect(() => {
    document.title = `${id ? 'Edit check' : 'Add check'} · mon`;
  }, [id]);
  if (id && definition.isPending) return <Loading />;
  if (id && definition.isError) return <ReadError error={definition.error} />;
  const def = definition.data;
  return (
    <FormBody
      key={id ?? 'new'}
      id={id}
      initial={def ? formFromBody(def.input) : emptyForm(query.get('service') ?? '')}
      reason={def ? readOnlyReason(def, def.input.from ?? null) : null}
    />
  );
}

function FormBody({
  id,
  initial,
  reason,
}: {
  id: string | undefined;
  initial: FormState;
  reason: string | null;
}) {
  const client = useQueryClient();
  const canWrite = useCanWrite();
  const [f, setF] = useState(initial);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [expectErrors, setExpectErrors] = useState(new Map<number, string>());
  const [focus, setFocus] = useState<string | null>(null);
  const firstField = useFocusOnMount<HTMLInputElement>(!id);
  const services = useQuery({
    queryKey: ['services'],
    queryFn: () => get<{ services: ServiceSummary[] }>('/services'),
  });
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) =>
    setF((prev) => ({ ...prev, [key]: value }));

  const save = useMutation({
    mutationFn: async (built: ReturnType<typeof bodyFromForm>) => {
      if (id) return put<{ id: string }>(`/checks/${enc(id)}`, built.body);
      const created = await post<{ id: string }>('/checks', built.body);
      if (built.body.kind === 'heartbeat') {
        // A heartbeat needs its ping URL; make it now so that it shows once on the check page.
        const ping = await post<{ url: string; replaced: boolean }>(
          `/checks/${enc(created.id)}/ping-url`,
        ).catch(() => null);
        if (ping) client.setQueryData(pingUrlKey(created.id), ping);
      }
      return created;
    },
    onSuccess: async (result) => {
      await client.invalidateQueries({ queryKey: ['check', result.id] });
      void client.invalidateQueries({ queryKey: ['services'] });
      void client.invalidateQueries({ queryKey: ['service'] });
      navigate(`/checks/${result.id}`);
    },
    onError: (error, built) => {
      if (!(error instanceof ApiError)) return;
      const field = error.field();
      if (field) {
        const m = /^expect\[(\d+)\]/.exec(field.path);
        const row = m ? built.expectRows[Number(m[1])] : undefined;
        const kind = built.body.kind;
        if (row !== undefined) {
          setExpectErrors(new Map([[row, readableMessage(kind, '', field.message)]]));
          setFocus(`expect-${m![1]}`);
        } else {
          // `headers.Bad Name: must be a header name` belongs to the headers editor; say which header.
          const top = field.path.split(/[.[]/)[0]!;
          const rest = field.path.slice(top.length).replace(/^\./, '');
          const message = readableMessage(kind, top, field.message);
          setErrors({ [top]: top === 'headers' && rest ? `${rest}: ${message}` : message });
          setFocus(top);
        }
      } else if (error.status === 409 && /name/i.test(error.detail ?? '')) {
        setErrors({ name: error.text });
        setFocus('name');
      }
    },
  });

  useEffect(() => {
    if (focus) document.getElementById(fieldId(focus))?.focus();
    setFocus(null);
  }, [focus]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const built = bodyFromForm(f);
    setExpectErrors(built.expectErrors);
    setErrors(built.errors);
    save.reset();
    const first = Object.keys(built.errors)[0];
    if (first) return setFocus(first);
    const row = built.expectRows.findIndex((key) => built.expectErrors.has(key));
    if (row >= 0) return setFocus(`expect-${row}`);
    save.mutate(built);
  };

  const e = errors;
  const fieldShown =
    save.error instanceof ApiError && (save.error.field() || (save.error.status === 409 && e.name));
  const k = f.kind;
  const info = kindInfo[k];
  const readOnly = !!reason || !canWrite;
  const known = new Set([
    'name',
    'service',
    'kind',
    'target',
    'method',
    'headers',
    'everyMs',
    'timeoutMs',
    'from',
    'cron',
    'timezone',
    'graceMs',
  ]);
  const stray = Object.entries(e).filter(([path]) => !known.has(path));

  return (
    <>
      <div className="page-head">
        <div>
          <div className="crumbs">
            <Link href="/">Overview</Link> /{' '}
            {id ? (
              <>
                <Link href={`/checks/${enc(id)}`}>{initial.name}</Link> /
              </>
            ) : null}
          </div>
          <h1>{id ? `Edit ${initial.name}` : 'Add a check'}</h1>
        </div>
      </div>
      {reason || !canWrite ? (
        <div className="alert" data-testid="read-only">
          {reason ?? 'Only admins can add or change checks.'}
        </div>
      ) : null}
      <form className="card card-body" onSubmit={submit} noValidate style={{ maxWidth: 760 }}>
        <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
          <Field path="kind" label="Kind" hint={info.help} error={e.kind}>
            <select
              {...control('kind', e.kind, true)}
              value={k}
              onChange={(ev) => set('kind', ev.target.value as FormState['kind'])}
            >
              {kinds.map((kind) => (
                <option key={kind} value={kind}>
                  {kindInfo[kind].label}
                </option>
              ))}
            </select>
          </Field>
          <div className="row">
            <Field path="name" label="Name" error={e.name}>
              <input
                {...control('name', e.name)}
                value={f.name}
                onChange={(ev) => set('name', ev.target.value)}
                required
                ref={firstField}
              />
            </Field>
            <Field path="service" label="Service" hint="A new name creates the service." error={e.service}>
              <input
                {...control('service', e.service, true)}
                list="services"
                value={f.service}
                onChange={(ev) => set('service', ev.target.value)}
                required
              />
              <datalist id="services">
                {services.data?.services.map((s) => (
                  <option key={s.name} value={s.name} />
                ))}
              </datalist>
            </Field>
          </div>
          {k !== 'heartbeat' ? (
            <Field path="target" label={info.target} error={e.target}>
              <input
                {...control('target', e.target)}
                value={f.target}
                placeholder={info.placeholder}
                onChange={(ev) => set('target', ev.target.value)}
                spellCheck={false}
              />
            </Field>
          ) : null}
          {k === 'http' ? (
            <Field path="method" label="Method" error={e.method}>
              <select
                {...control('method', e.method)}
                value={f.method}
                onChange={(ev) => set('method', ev.target.value)}
                style={{ maxWidth: 200 }}
              >
                {methods.map((m) => (
                  <option key={m}>{m}</option>
                ))}
              </select>
            </Field>
          ) : null}
          {k === 'heartbeat' ? (
            <Field path="schedule" label="Schedule">
              <fieldset className="segmented" id={fieldId('schedule')}>
                <legend className="sr-only">Schedule</legend>
                <button
                  type="button"
                  aria-pressed={f.schedule === 'every'}
                  onClick={() => set('schedule', 'every')}
                >
                  Every interval
                </button>
                <button
                  type="button"
                  aria-pressed={f.schedule === 'cron'}
                  onClick={() => set('schedule', 'cron')}
                >
                  Cron
                </button>
              </fieldset>
            </Field>
          ) : null}
          <div className="row">
            {k !== 'domain' && (k !== 'heartbeat' || f.schedule === 'every') ? (
              <Field
                path="everyMs"
                label={k === 'heartbeat' ? 'Expected every' : 'Run every'}
                hint="e.g. 30s, 5m, 1h; at least 10s"
                error={e.everyMs}
              >
                <input
                  {...control('everyMs', e.everyMs, true)}
                  value={f.every}
                  onChange={(ev) => set('every', ev.target.value)}
                />
              </Field>
            ) : null}
            {k === 'heartbeat' && f.schedule === 'cron' ? (
              <>
                <Field
                  path="cron"
                  label="Cron expression"
                  hint="five fields: minute hour day month weekday"
                  error={e.cron}
                >
                  <input
                    {...control('cron', e.cron, true)}
                    value={f.cron}
                    placeholder="0 3 * * *"
                    onChange={(ev) => set('cron', ev.target.value)}
                    spellCheck={false}
                  />
                </Field>
                <Field path="timezone" label="Time zone" hint="IANA name; UTC when empty" error={e.timezone}>
                  <input
                    {...control('timezone', e.timezone, true)}
                    value={f.timezone}
                    placeholder="UTC"
                    onChange={(ev) => set('timezone', ev.target.value)}
                    spellCheck={false}
                  />
                </Field>
              </>
            ) : null}
            {k === 'heartbeat' ? (
              <Field
                path="graceMs"
                label="Grace time"
                hint="how late a ping may be; 5m when empty"
                error={e.graceMs}
              >
                <input
                  {...control('graceMs', e.graceMs, true)}
                  value={f.grace}
                  placeholder="5m"
                  onChange={(ev) => set('grace', ev.target.value)}
                />
              </Field>
            ) : (
              <Field path="timeoutMs" label="Timeout" hint="10s when empty" error={e.timeoutMs}>
                <input
                  {...control('timeoutMs', e.timeoutMs, true)}
                  value={f.timeout}
                  placeholder="10s"
                  onChange={(ev) => set('timeout', ev.target.value)}
                />
              </Field>
            )}
            {k !== 'domain' && k !== 'heartbeat' ? (
              <Field
                path="from"
                label="Run from host"
                hint="an agent's host name; the server when empty"
                error={e.from}
              >
                <input
                  {...control('from', e.from, true)}
                  value={f.from}
                  onChange={(ev) => set('from', ev.target.value)}
                  spellCheck={false}
                />
              </Field>
            ) : null}
          </div>
          {k === 'http' ? (
            <HeadersEditor rows={f.headers} onChange={(rows) => set('headers', rows)} error={e.headers} />
          ) : null}
          <ExpectEditor
            kind={k}
            rows={f.expect}
            onChange={(rows) => set('expect', rows)}
            errors={expectErrors}
          />
          {e.expect ? (
            <p className="field-error" role="alert">
              {e.expect}
            </p>
          ) : null}
          {stray.map(([path, message]) => (
            <p key={path} className="field-error" role="alert">
              {fieldLabel(k, path) ?? path}: {message}
            </p>
          ))}
          {save.error && !fieldShown ? <ErrorBox error={save.error} title="Could not save." /> : null}
          {readOnly ? null : (
            <div className="actions">
              <button type="submit" className="primary" disabled={save.isPending}>
                {save.isPending ? 'Saving…' : id ? 'Save changes' : 'Add check'}
              </button>
              <Link className="button" href={id ? `/checks/${enc(id)}` : '/'}>
                Cancel
              </Link>
            </div>
          )}
        </fieldset>
      </form>
    </>
  );
}
