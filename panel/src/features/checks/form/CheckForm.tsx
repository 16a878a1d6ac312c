import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { Created } from '../../../../../protocol/reads.ts';
import { ErrorBox, Loading, ReadError } from '../../../components/Feedback.tsx';
import { Field } from '../../../components/Field.tsx';
import { enc } from '../../../lib/api.ts';
import { useFocusOnMount } from '../../../lib/focus.ts';
import { Invalid, useForm } from '../../../lib/form.ts';
import { Link, navigate, useLocation } from '../../../lib/router.tsx';
import { useCanWrite } from '../../../lib/session.ts';
import { useServices } from '../../services/queries.ts';
import { readOnlyReason } from '../describe.ts';
import { saveCheck, useCheckDefinition } from '../queries.ts';
import { ExpectEditor } from './ExpectEditor.tsx';
import { localErrors, rowErrors, serverErrors, strayErrors } from './errors.ts';
import { HeadersEditor } from './HeadersEditor.tsx';
import { type FieldsProps, KindFields } from './KindFields.tsx';
import {
  bodyFromForm,
  emptyForm,
  type FormState,
  fieldsShown,
  formFromBody,
  kindInfo,
  kinds,
} from './model.ts';
import { ScheduleFields } from './ScheduleFields.tsx';

/** Create (no id) or edit a check of any kind; the server's 422 lands at the field it names. */
export default function CheckForm({ id }: { id?: string }) {
  const definition = useCheckDefinition(id, { forForm: true });
  const { query } = useLocation();
  useEffect(() => {
    document.title = `${id ? 'Edit check' : 'Add check'} · mon`;
  }, [id]);
  if (id && definition.isPending) return <Loading />;
  if (id && definition.isError) return <ReadError error={definition.error} />;
  const def = definition.data;
  // A command check has no form here: its host's checks.toml defines it.
  if (def?.input.kind === 'command') {
    return (
      <div className="alert" data-testid="read-only">
        {readOnlyReason(def, def.input.from)}
      </div>
    );
  }
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
  const [state, setState] = useState(initial);
  // Keys of the assertion rows as last sent: `expect[i]` errors belong to the row sent i-th.
  const [sentRows, setSentRows] = useState<number[]>([]);
  const firstField = useFocusOnMount<HTMLInputElement>(!id);
  const services = useServices();
  const set: FieldsProps['set'] = (key, value) => setState((prev) => ({ ...prev, [key]: value }));

  const form = useForm(async () => {
    const built = bodyFromForm(state);
    setSentRows(built.expectRows);
    const local = localErrors(built);
    if (local) throw new Invalid(local);
    let saved: Created;
    try {
      saved = await saveCheck(client, id, built.body);
    } catch (error) {
      const fields = serverErrors(error, built.body.kind, built.expectRows.length);
      throw fields ? new Invalid(fields) : error;
    }
    navigate(`/checks/${saved.id}`);
  });

  const k = state.kind;
  const shown = fieldsShown(k, state.schedule);
  const parts: FieldsProps = { state, set, form, shown };
  const readOnly = !!reason || !canWrite;

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
      {readOnly ? (
        <div className="alert" data-testid="read-only">
          {reason ?? 'Only admins can add or change checks.'}
        </div>
      ) : null}
      <form className="card card-body" onSubmit={form.onSubmit} noValidate style={{ maxWidth: 760 }}>
        <fieldset disabled={readOnly} style={{ border: 0, padding: 0, margin: 0 }}>
          <Field {...form.field('kind')} label="Kind" hint={kindInfo[k].help}>
            <select
              {...form.control('kind', { hint: true })}
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
            <Field {...form.field('name')} label="Name">
              <input
                {...form.control('name')}
                value={state.name}
                onChange={(ev) => set('name', ev.target.value)}
                required
                ref={firstField}
              />
            </Field>
            <Field {...form.field('service')} label="Service" hint="A new name creates the service.">
              <input
                {...form.control('service', { hint: true })}
                list="services"
                value={state.service}
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
          <KindFields {...parts} />
          <ScheduleFields {...parts} />
          {shown.has('headers') ? (
            <HeadersEditor
              rows={state.headers}
              onChange={(rows) => set('headers', rows)}
              error={form.errors.headers}
            />
          ) : null}
          <ExpectEditor
            kind={k}
            rows={state.expect}
            onChange={(rows) => set('expect', rows)}
            errors={rowErrors(form.errors, sentRows)}
          />
          {form.errors.expect ? (
            <p className="field-error" role="alert">
              {form.errors.expect}
            </p>
          ) : null}
          {strayErrors(form.errors, k, shown).map((line) => (
            <p key={line} className="field-error" role="alert">
              {line}
            </p>
          ))}
          <ErrorBox error={form.formError} title="Could not save." />
          {readOnly ? null : (
            <div className="actions">
              <button type="submit" className="primary" disabled={form.busy}>
                {form.busy ? 'Saving…' : id ? 'Save changes' : 'Add check'}
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
