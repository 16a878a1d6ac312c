import type { ReactNode } from 'react';

/** Ids of form controls are derived from the API field path, so an error can focus its field. */
export const fieldId = (path: string) => `f-${path.replace(/[^\w-]/g, '_')}`;

type Props = {
  label: string;
  hint?: ReactNode;
  error?: string | undefined;
  children: ReactNode;
} & (
  | {
      /** API field path: the control's id comes from it (see `control`), hint and error get ids, errors are announced. */
      path: string;
      id?: never;
    }
  | {
      /** Id of the control of a plain form. */
      id: string;
      path?: never;
    }
);

/** A labelled control with its hint and its error. */
export function Field({ path, id, label, hint, error, children }: Props) {
  const controlId = path === undefined ? id : fieldId(path);
  const tied = path !== undefined;
  return (
    <div className="field" data-field={path}>
      <label htmlFor={controlId}>{label}</label>
      {children}
      {hint ? (
        <span className="hint" id={tied ? `${controlId}-hint` : undefined}>
          {hint}
        </span>
      ) : null}
      {error ? (
        <span className="field-error" id={tied ? `${controlId}-error` : undefined} role="alert">
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
