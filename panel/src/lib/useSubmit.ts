import { type FormEvent, useState } from 'react';
import { ApiError } from './api.ts';

/**
 * Submit handling of a small form that stays on its page: busy while `action` runs, the form reset
 * after it succeeds, and its ApiError split into the one field it names (a 422 naming one of `fields`)
 * or a form-level error.
 */
export function useSubmit(action: (form: FormData) => Promise<void>, fields: readonly string[]): Submit {
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const formEl = event.currentTarget;
    setBusy(true);
    setError(null);
    try {
      await action(new FormData(formEl));
      formEl.reset();
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e), undefined, null));
    } finally {
      setBusy(false);
    }
  };
  // An error naming a field this form does not show stays a form-level error, so it is never lost.
  const named = error?.field() ?? null;
  const field = named && fields.includes(named.path) ? named : null;
  return {
    busy,
    onSubmit: (event: FormEvent<HTMLFormElement>) => void onSubmit(event),
    fieldError: (path: string) => (field?.path === path ? field.message : undefined),
    formError: field ? null : error,
  };
}

export type Submit = {
  busy: boolean;
  onSubmit: (event: FormEvent<HTMLFormElement>) => void;
  /** The message for a field path when the error names that field. */
  fieldError: (path: string) => string | undefined;
  /** The error when it names no field, for an ErrorBox. */
  formError: ApiError | null;
};
