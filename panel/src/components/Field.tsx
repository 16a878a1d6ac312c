import type { ReactNode } from 'react';
import { fieldId } from '../lib/form.ts';

type Props = {
  /** API field path: the control's id comes from it and the scope (see `useForm().control`). */
  path: string;
  scope?: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: ReactNode;
};

/** A labelled control with its hint and its error; the error is announced. Spread `form.field(path)` in. */
export function Field({ path, scope, label, hint, error, children }: Props) {
  const controlId = fieldId(path, scope);
  return (
    <div className="field" data-field={path}>
      <label htmlFor={controlId}>{label}</label>
      {children}
      {hint ? (
        <span className="hint" id={`${controlId}-hint`}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <span className="field-error" id={`${controlId}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}
