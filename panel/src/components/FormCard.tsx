import type { ReactNode } from 'react';
import type { Submit } from '../lib/useSubmit.ts';
import { ErrorBox } from './Feedback.tsx';

/** A card holding a small form: its fields in a row, the error that names no field, the submit button. */
export function FormCard({
  title,
  action,
  submit,
  children,
}: {
  title: string;
  action: string;
  submit: Submit;
  children: ReactNode;
}) {
  return (
    <section className="card">
      <div className="card-head">
        <h2>{title}</h2>
      </div>
      <form className="card-body" onSubmit={submit.onSubmit} noValidate>
        <div className="row">{children}</div>
        <ErrorBox error={submit.formError} />
        <button type="submit" className="primary" disabled={submit.busy}>
          {action}
        </button>
      </form>
    </section>
  );
}
