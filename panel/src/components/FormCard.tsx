import type { ReactNode } from 'react';
import type { Form } from '../lib/form.ts';
import { ErrorBox } from './Feedback.tsx';

/** A card holding a small form: its fields in a row, the error that names no field, the submit button. */
export function FormCard({
  title,
  action,
  form,
  children,
}: {
  title: string;
  action: string;
  form: Form;
  children: ReactNode;
}) {
  return (
    <section className="card">
      <div className="card-head">
        <h2>{title}</h2>
      </div>
      <form className="card-body" onSubmit={form.onSubmit} noValidate>
        <div className="row">{children}</div>
        <ErrorBox error={form.formError} />
        <button type="submit" className="primary" disabled={form.busy}>
          {action}
        </button>
      </form>
    </section>
  );
}
