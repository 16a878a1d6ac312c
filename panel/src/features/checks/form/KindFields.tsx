import { Field } from '../../../components/Field.tsx';
import type { Form } from '../../../lib/form.ts';
import { type FormState, kindInfo, methods } from './model.ts';

/** What a part of the check form gets: the state, its setter, the form's errors and the fields shown. */
export type FieldsProps = {
  state: FormState;
  set: <K extends keyof FormState>(key: K, value: FormState[K]) => void;
  form: Form;
  shown: ReadonlySet<string>;
};

/** The fields of the kind: its target (URL, host and port, name, domain) and an HTTP check's method. */
export function KindFields({ state, set, form, shown }: FieldsProps) {
  const info = kindInfo[state.kind];
  return (
    <>
      {shown.has('target') ? (
        <Field {...form.field('target')} label={info.target}>
          <input
            {...form.control('target')}
            value={state.target}
            placeholder={info.placeholder}
            onChange={(ev) => set('target', ev.target.value)}
            spellCheck={false}
          />
        </Field>
      ) : null}
      {shown.has('method') ? (
        <Field {...form.field('method')} label="Method">
          <select
            {...form.control('method')}
            value={state.method}
            onChange={(ev) => set('method', ev.target.value)}
            style={{ maxWidth: 200 }}
          >
            {methods.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
      ) : null}
      {shown.has('allowLinkLocal') ? (
        <Field
          {...form.field('allowLinkLocal')}
          label="Link-local addresses"
          hint="Cloud metadata services answer on these (169.254.0.0/16, fe80::/10) and hand out the machine's credentials: allow them only for a target that is one."
        >
          <label className="check">
            <input
              type="checkbox"
              checked={state.allowLinkLocal}
              onChange={(ev) => set('allowLinkLocal', ev.target.checked)}
            />
            Allow link-local addresses
          </label>
        </Field>
      ) : null}
    </>
  );
}
