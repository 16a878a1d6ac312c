import type { ReactNode } from 'react';

/** Ids of form controls are derived from the API field path, so an error can focus its field. */
export const fieldId = (path: string) => `f-${path.replace(/[^\w-]/g, '_')}`;

type Props = {
  path: string;
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: ReactNode;
};

/** A labelled control with its hint and the error for its field path. */
export function Field({ path, label, hint, error, children }: Props) {
  const id = fieldId(path);
  return (
    <div className="field" data-field={path}>
      <label htmlFor={id}>{label}</label>
      {children}
      {hint ? (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <span className="field-error" id={`${id}-error`} role="alert">
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** Props that tie an input to its field: id, error state and description. */
export function control(path: string, error: string | undefined, hint = false) {
  const id = fieldId(path);
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return {
    id,
    name: path,
    'aria-invalid': error ? (true as const) : undefined,
    'aria-describedby': describedBy || undefined,
  };
}
