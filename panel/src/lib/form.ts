import { type FormEvent, useEffect, useState } from 'react';
import { ApiError } from './api.ts';

/**
 * The one way to write a form: `useForm(action, options)` gives the submit handler, the busy state, the
 * errors at their fields and the error of the whole form; `<Field {...form.field(path)}>` with
 * `<input {...form.control(path)}>` ties each control to its API field path. After a failed submit the
 * first field with an error gets the focus.
 */

/** Messages by API field path (`everyMs`, `expect[1]`, `headers`), in the order the form shows them. */
export type FieldErrors = Record<string, string>;

/** Thrown by a form's action for errors at fields: found before sending, or a server error it mapped. */
export class Invalid extends Error {
  readonly fields: FieldErrors;

  constructor(fields: FieldErrors) {
    super(Object.values(fields).join('; '));
    this.fields = fields;
  }
}

/** The id of the control of a field path: `expect[2]` in scope `f` is `f-expect-2`. */
export const fieldId = (path: string, scope = 'f') =>
  `${scope}-${path.replace(/\[(\d+)\]/g, '-$1').replace(/[^\w-]/g, '_')}`;

export type FormOptions = {
  /** Prefix of the control ids, unique on the page (`new-user` gives `new-user-email`). Default `f`. */
  scope?: string;
  /** Paths of the fields this form shows: a server 422 naming one lands there; any other is the form's. */
  fields?: readonly string[];
  /** Empty the form after the action succeeds (a form that stays on its page). */
  reset?: boolean;
};

export type Form = {
  busy: boolean;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  errors: FieldErrors;
  /** The error that names no field of the form, for an ErrorBox; null when there is none. */
  formError: unknown;
  /** Props of a <Field>: its path, scope and error. */
  field: (path: string) => { path: string; scope: string; error: string | undefined };
  /** Props of the control of a field: id, name, error state and description. */
  control: (path: string, options?: { hint?: boolean }) => ControlProps;
};

export type ControlProps = {
  id: string;
  name: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
};

/** `action` receives the form's data; it throws an ApiError, an Invalid, or anything else (form-level). */
export function useForm(action: (data: FormData) => Promise<void>, options: FormOptions = {}): Form {
  const scope = options.scope ?? 'f';
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<unknown>(null);
  const [focus, setFocus] = useState<string | null>(null);

  useEffect(() => {
    if (focus === null) return;
    document.getElementById(fieldId(focus, scope))?.focus();
    setFocus(null);
  }, [focus, scope]);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    setBusy(true);
    setErrors({});
    setFormError(null);
    try {
      await action(new FormData(formEl));
      if (options.reset) formEl.reset();
    } catch (error) {
      const fields = error instanceof Invalid ? error.fields : namedField(error, options.fields ?? []);
      if (fields) {
        setErrors(fields);
        setFocus(Object.keys(fields)[0] ?? null);
      } else {
        setFormError(error);
      }
    } finally {
      setBusy(false);
    }
  };

  return {
    busy,
    onSubmit: (event) => void submit(event),
    errors,
    formError,
    field: (path) => ({ path, scope, error: errors[path] }),
    control: (path, { hint = false } = {}) => controlProps(path, scope, errors[path], hint),
  };
}

/** A 422 naming one of `fields` becomes that field's error; an error naming another field stays the form's. */
function namedField(error: unknown, fields: readonly string[]): FieldErrors | null {
  const named = error instanceof ApiError ? error.field() : null;
  return named && fields.includes(named.path) ? { [named.path]: named.message } : null;
}

export function controlProps(
  path: string,
  scope: string,
  error: string | undefined,
  hint: boolean,
): ControlProps {
  const id = fieldId(path, scope);
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    name: path,
    'aria-invalid': error ? true : undefined,
    'aria-describedby': describedBy || undefined,
  };
}
